"""The user guide builds into a site with `mkdocs build --strict`: no broken link or anchor."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.processes import run_python

# Material prints a banner about MkDocs 2 on every build; it is not a build warning.
QUIET_THEME = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def build_site(folder: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of a copy of the guide (docs/ and mkdocs.yml) in ``folder``;
    the site is written to ``folder/site``."""
    shutil.copytree(REPO / "docs", folder / "docs")
    shutil.copy(REPO / "mkdocs.yml", folder / "mkdocs.yml")
    build = ("-m", "mkdocs", "build", "--strict", "--site-dir", "site")
    return run_python(*build, cwd=folder, env=QUIET_THEME)


def test_the_guide_builds_strictly(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.fail("mkdocs is not installed: pip install -e '.[dev]' installs it")
    done = build_site(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    site = tmp_path / "site"
    pages = {p.name for p in site.glob("*.html")}
    expected = {p.stem + ".html" for p in (tmp_path / "docs").glob("*.md")}
    assert expected - {"index.html"} <= pages and "index.html" in pages
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="determinism.html"' in index  # opens from disk: links to files, not folders
    determinism = (site / "determinism.html").read_text(encoding="utf-8")
    assert "<td><code>PRIMUS_HC_TRITON</code></td>" in determinism
    checks = (site / "checks.html").read_text(encoding="utf-8")  # the rules rendered by the hook
    assert '<h3 id="knb004-conflictingsites">KNB004 ConflictingSites</h3>' in checks
    assert '<a href="waivers.html#knb201-expiredwaiver">KNB201</a>' in checks
    assert "site:" not in checks


def test_every_page_is_in_the_navigation() -> None:
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.name for p in (REPO / "docs").glob("*.md")}
    assert {name for name in pages if f": {name}\n" not in config} == set()
