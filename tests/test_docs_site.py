"""The docs site opens from disk with no network: search answers and code is highlighted.

The site is built with `mkdocs build`; a headless Chromium (Debian's `chromium`
package, installed with apt-get where it is missing, as Slurm is for its tests) then loads
a page from file:// and types a query into the search box. Where Chromium can be neither
found nor installed, the browser test is skipped, saying why; the build checks still run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import apt
from tests.test_docs_build import build_site

# Typed into the search box once the page has loaded.
PROBE = """<script>
addEventListener("load", () => setTimeout(() => {
  const input = document.querySelector("[data-md-component=search-query]");
  input.focus();
  input.value = "bitwise";
  for (const kind of ["focus", "input", "keyup"]) {
    input.dispatchEvent(new Event(kind, {bubbles: true}));
  }
}, 1000));
</script></body>"""
EXTERNAL = re.compile(r'<(?:script|img)[^>]* src="https?://|<link[^>]* href="https?://[^"]*"[^>]*>')


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs-site")
    done = build_site(folder)
    assert done.returncode == 0, done.stderr
    return folder / "site"


def test_no_page_loads_anything_from_the_network(site: Path) -> None:
    pages = sorted(site.glob("*.html"))
    assert pages
    assert {p.name: EXTERNAL.findall(p.read_text(encoding="utf-8")) for p in pages} == {
        p.name: [] for p in pages
    }
    assert (site / "search" / "search_index.js").is_file()  # loaded by a script tag, not fetched


def test_code_is_highlighted_when_the_site_is_built(site: Path) -> None:
    page = (site / "checks.html").read_text(encoding="utf-8")
    assert re.search(r'<div class="highlight">.*?<span class="[a-z]{1,3}">', page, re.DOTALL)


BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _chromium() -> str:
    """The browser's path, Debian's chromium installed first where none is found; the test
    is skipped, saying why, where that cannot be done."""
    if not any(shutil.which(name) for name in BROWSERS):
        try:
            apt.install(("chromium",), ("chromium",), "Chromium")
        except apt.Unavailable as exc:
            pytest.skip(f"no Chromium here: {exc}")
    return next(found for name in BROWSERS if (found := shutil.which(name)) is not None)


def test_search_answers_from_disk_in_a_headless_browser(site: Path) -> None:
    browser = _chromium()
    page = (site / "checks.html").read_text(encoding="utf-8")
    probe = site / "probe.html"
    probe.write_text(page.replace("</body>", PROBE), encoding="utf-8")
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=15000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    found = re.search(r'md-search-result__meta">(\d+) matching documents?<', dom)
    assert found is not None and int(found[1]) > 0, dom[-2000:]
    assert dom.count("md-search-result__item") > 0
    assert re.search(r'<div class="highlight">.*?<span class="[a-z]{1,3}">', dom, re.DOTALL)
