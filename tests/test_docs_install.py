"""The install commands the docs and messages give work today: none installs knobregistry
from PyPI, where it is not published yet (a sentence may name PyPI as a future channel)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.processes import run_command

# `pip install knobregistry`, `pip install 'knobregistry[megatron]'`: a name on PyPI. A
# requirement with a URL (`knobregistry[megatron] @ git+https://...`) is another thing.
FROM_PYPI = re.compile(r"""pip install ['"]?knobregistry(\[[\w,]*\])?['"]?(?!\s*@)(?![\w\[-])""")
FUTURE = "not published on PyPI yet"


def _texts() -> list[Path]:
    pages = sorted((REPO / "docs").glob("*.md"))
    sources = sorted(p for p in (REPO / "knobregistry").rglob("*.py"))
    return [REPO / "README.md", *pages, *sources]


def test_no_page_or_message_installs_knobregistry_from_pypi() -> None:
    found = []
    for path in _texts():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if FROM_PYPI.search(line) and FUTURE not in line:
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == []


def test_the_pattern_finds_what_it_must() -> None:
    assert FROM_PYPI.search("pip install knobregistry")
    assert FROM_PYPI.search("      - run: pip install knobregistry\n")
    assert FROM_PYPI.search("pip install 'knobregistry[megatron]'")
    assert not FROM_PYPI.search("pip install 'knobregistry[megatron] @ git+https://x/y'")
    assert not FROM_PYPI.search("pip install knobregistry-0.1.0-py3-none-any.whl")
    assert not FROM_PYPI.search("pip install dist/knobregistry-*.whl")


def test_install_page_gives_the_commands_that_work_today() -> None:
    page = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    for command in (
        "pip install .",
        "pip install -e .",
        "pip install /path/to/knobregistry",
        "make dist",
        "pip install dist/knobregistry-*.whl",
        'pip install "git+file:///path/to/knobregistry@COMMIT"',
    ):
        assert f"\n{command} " in page, command
    assert FUTURE in page


# A URL or a revision that stands for one nobody has: github.com/<org>/..., rev: <a tag>.
PLACEHOLDER = re.compile(r"github\.com/<|<org>|<a tag>|<this repository|<the knobregistry")


def test_no_page_installs_from_a_url_or_a_tag_that_does_not_exist() -> None:
    texts = [*_texts(), REPO / ".pre-commit-hooks.yaml"]
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in texts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PLACEHOLDER.search(line)
    ]
    assert found == []


def test_the_local_pre_commit_hook_of_the_guide_is_the_shipped_hook() -> None:
    """docs/ci.md's `repo: local` hook, for a project that has knobs installed, runs what
    the repository's hook runs."""
    page = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    local = page.split("  - repo: local\n", 1)[1].split("```", 1)[0]
    (hook,) = yaml.safe_load(local)["hooks"]
    (shipped,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["language"] == "system"
    keys = ("id", "name", "entry", "pass_filenames", "require_serial", "types_or")
    assert {k: hook[k] for k in keys} == {k: shipped[k] for k in keys}


@pytest.mark.slow
def test_pip_builds_knobregistry_from_the_clones_git_history(tmp_path: Path) -> None:
    """The git route of the install page, `git+file://CLONE@COMMIT`, with this clone and its
    HEAD: pip clones it and builds the wheel (offline, with this environment's setuptools)."""
    head = run_command("git", "rev-parse", "HEAD", cwd=REPO)
    if head.returncode != 0:
        pytest.skip(f"this tree is not a git clone: {head.stderr.strip()}")
    url = f"git+file://{REPO}@{head.stdout.strip()}"
    built = run_command(
        sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
        "--disable-pip-version-check", url, "--wheel-dir", tmp_path, cwd=tmp_path,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["knobregistry-0.1.0-py3-none-any.whl"]
