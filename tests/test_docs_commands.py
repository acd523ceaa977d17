"""Every command of `knobs` is in the README's table of commands and has a page in the user
guide whose title names it, listed in the site's navigation and on the guide's index; the
samples those pages show are real output."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from knobregistry.cli import COMMANDS
from tests.conftest import REPO, run_knobs

DOCS = REPO / "docs"


def _readme_commands() -> list[str]:
    """The commands of the README's table under `## Commands`, in its order."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `knobs (\w+)", table, re.MULTILINE)


def _titles() -> dict[str, str]:
    """Each page of docs/ by its title (the first line)."""
    pages = sorted(DOCS.glob("*.md"))
    return {p.name: p.read_text(encoding="utf-8").splitlines()[0] for p in pages}


def _nav_pages() -> set[str]:
    """The pages of the site's navigation (mkdocs.yml's `nav:`, read as text: it names a
    Python hook that a safe YAML load refuses)."""
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    return set(re.findall(r"^  - [^:]+: (\S+\.md)$", nav, re.MULTILINE))


def test_the_readme_lists_every_command() -> None:
    assert sorted(_readme_commands()) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_has_a_page_titled_with_it(command: str) -> None:
    first = {name: re.search(r"`knobs (\w+)`", title) for name, title in _titles().items()}
    pages = [name for name, found in first.items() if found and found.group(1) == command]
    assert len(pages) == 1, (command, pages)
    (page,) = pages
    assert page in _nav_pages()
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert f"]({page}) |" in index  # a row of the guide's table


def test_the_explain_page_shows_real_output() -> None:
    done = run_knobs(
        "explain", "TOY_EMBED_GRAD_ATOMIC", cwd=REPO / "examples", env={"COLUMNS": "100"}
    )
    assert done.returncode == 0, done.stderr
    assert f"```\n{done.stdout}```\n" in (DOCS / "explain.md").read_text(encoding="utf-8")


def test_the_rule_page_shows_real_output() -> None:
    done = run_knobs("rule", "KNB003", cwd=REPO, env={"COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    shown = "".join(f"    {line}\n" if line else "\n" for line in done.stdout.splitlines())
    assert f"    $ knobs rule KNB003\n{shown}" in (DOCS / "rule.md").read_text(encoding="utf-8")
    missing = run_knobs("rule", "KNB999", cwd=REPO)
    assert f"    {missing.stderr}" in (DOCS / "rule.md").read_text(encoding="utf-8")


def test_the_fingerprint_page_shows_real_output(tmp_path: Path) -> None:
    example = tmp_path / "examples"
    shutil.copytree(REPO / "examples", example, ignore=shutil.ignore_patterns("runs", ".knobs"))
    page = (DOCS / "fingerprint.md").read_text(encoding="utf-8")
    outputs = []
    for edit in (False, True):
        if edit:  # the edit the page describes
            kernels = example / "toymodel" / "kernels.py"
            text = kernels.read_text(encoding="utf-8")
            assert "    mask = (rows < n_rows)[:, None]\n" in text
            kernels.write_text(
                text.replace("(rows < n_rows)", "(rows <= n_rows - 1)"), encoding="utf-8"
            )
        done = run_knobs("fingerprint", "TOY_ROPE_TRITON", cwd=example, env={"COLUMNS": "100"})
        shown = "".join(f"    {line}\n" for line in done.stdout.splitlines())
        outputs.append(
            (done.returncode, f"    $ knobs fingerprint TOY_ROPE_TRITON\n{shown}" in page)
        )
    assert outputs == [(0, True), (1, True)]
