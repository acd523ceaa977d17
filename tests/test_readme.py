"""The README's shell blocks, run in order as a new user runs them on a fresh clone: `make
demo`, then the recipe workflow, which must find `knobs` where `make demo` put it.

The quick test stands in for what `make demo` leaves (a `.venv` whose `activate` puts a
`knobs` on PATH); the slow one runs `make demo` itself in a copy of the repository.
`make test` is this suite: neither runs it.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.processes import run_command

BLOCK = re.compile(r"^```sh\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
SUITE = "make test"  # the suite this test is part of


def readme_blocks() -> list[list[str]]:
    """The README's ```sh blocks, each as its command lines."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [block.splitlines() for block in BLOCK.findall(text)]


def _script(make_demo: str) -> str:
    """The blocks in order as one script that stops at the first failure, `make demo` run
    as ``make_demo`` says and `make test` left out."""
    lines = ["set -e"]
    for block in readme_blocks():
        for line in block:
            command = line.split("#", 1)[0].strip()
            if command == "make demo":
                lines.append(make_demo)
            elif command != SUITE:
                lines.append(line)
    return "\n".join(lines) + "\n"


def _clean_env() -> dict[str, str]:
    """A new user's shell: no virtual environment active, knobs on no PATH."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("VIRTUAL_ENV", None)
    bins = {str(Path(sys.executable).parent), str(REPO / ".venv" / "bin")}
    path = [p for p in environment.get("PATH", "").split(os.pathsep) if p not in bins]
    environment["PATH"] = os.pathsep.join(path)
    return environment


def test_the_readme_has_the_blocks_a_new_user_runs() -> None:
    first, workflow = readme_blocks()[:2]
    assert [line.split("#")[0].strip() for line in first] == ["make demo", SUITE]
    assert workflow[0].startswith(". .venv/bin/activate ")


def test_the_workflow_runs_as_written_after_make_demo(tmp_path: Path) -> None:
    """`make demo` stood in for by what it leaves: .venv/bin/activate, which puts `knobs`
    (this interpreter's) on PATH."""
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "examples", clone / "examples", ignore=shutil.ignore_patterns(".knobs"))
    bin_ = clone / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "knobs").write_text(f'#!/bin/sh\nexec {sys.executable} -m knobregistry "$@"\n')
    (bin_ / "knobs").chmod(0o755)
    (bin_ / "activate").write_text(f'PATH="{bin_}:$PATH"\nexport PATH\n')
    environment = {**_clean_env(), "PYTHONPATH": str(REPO)}
    unset = run_command("bash", "-c", "knobs --version", cwd=clone, env=environment)
    assert unset.returncode == 127  # the wall: without the first line, no knobs
    done = run_command("bash", "-c", _script(": make demo"), cwd=clone, env=environment)
    assert done.returncode == 0, done.stdout + done.stderr
    recipe = (clone / "examples" / "env.sh").read_text(encoding="utf-8")
    assert "export TOY_FUSED_LINEAR_CE='0'\n" in recipe


@pytest.mark.slow
def test_a_fresh_clone_runs_the_readme_in_order(tmp_path: Path) -> None:
    """The repository's files as a clone has them (tracked, as in this tree), then the
    README's blocks: `make demo` builds .venv and runs the demo, which ends saying what
    next; the workflow after it finds `knobs` and writes the recipe."""
    listed = run_command("git", "ls-files", "-z", cwd=REPO)
    if listed.returncode != 0:
        pytest.skip(f"not a git clone: {listed.stderr.strip()}")
    clone = tmp_path / "clone"
    for name in filter(None, listed.stdout.split("\0")):
        source = REPO / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    done = run_command("bash", "-c", _script("make demo"), cwd=clone, env=_clean_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "\nWhat next, from the repository's folder:\n" in done.stdout
    assert "test $?" not in done.stdout + done.stderr  # no raw shell of the Makefile
    assert "\n$ knobs export --profile bitwise\n" in done.stdout
    recipe = (clone / "examples" / "env.sh").read_text(encoding="utf-8")
    assert "export TOY_FUSED_LINEAR_CE='0'\n" in recipe
