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
    environment = {**_clean_env(), "COLUMNS": "120"}  # the tables at the width of DEMO_TRIAGE
    done = run_command("bash", "-c", _script("make demo"), cwd=clone, env=environment)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    _assert_the_demo_locates_each_breaking_knob_and_nothing_else(done.stdout)
    assert "\nWhat next, from the repository's folder:\n" in done.stdout
    assert "test $?" not in done.stdout + done.stderr  # no raw shell of the Makefile
    assert "\n$ knobs export --profile bitwise\n" in done.stdout
    recipe = (clone / "examples" / "env.sh").read_text(encoding="utf-8")
    assert "export TOY_FUSED_LINEAR_CE='0'\n" in recipe


# `make demo`'s first triage, as it prints it; its two LINEAR_CE and EMBEDDING lines vary.
DEMO_TRIAGE = """\
$ knobs triage --profile bitwise --knob TOY_FUSED_LINEAR_CE --knob TOY_EMBED_GRAD_PARALLEL \
--knob TOY_EMBED_GRAD_ATOMIC --pairs --runs 3 --jobs 2 --compare checksums:checksums \
-- python train.py --steps 5
knobs triage: python train.py --steps 5
compare: checksums:checksums; runs per setting: 3; profile: bitwise; candidates: 3
sweep      knobs on                                          verdict          runs
──────────────────────────────────────────────────────────────────────────────────
baseline   -                                                 reproducible        3
alone      TOY_EMBED_GRAD_ATOMIC                             reproducible        3
alone      TOY_EMBED_GRAD_PARALLEL                           reproducible        3
alone      TOY_FUSED_LINEAR_CE                               breaks-bitwise      3
pairs      TOY_EMBED_GRAD_ATOMIC + TOY_EMBED_GRAD_PARALLEL   breaks-bitwise      3

LINEAR_CE
EMBEDDING

Breaks bitwise reproducibility alone: TOY_FUSED_LINEAR_CE.
Reproducible alone: TOY_EMBED_GRAD_ATOMIC, TOY_EMBED_GRAD_PARALLEL.
Pairs: 1 swept; breaking together: TOY_EMBED_GRAD_ATOMIC + TOY_EMBED_GRAD_PARALLEL.
Runs of the command: 15 (baseline 3, alone 9, pairs 3).
(exit 1: it found knobs that break bitwise reproducibility, as the demo expects)
"""

# The thread schedule decides in which step the adds first land in another order: any step,
# and which run shows it (two runs can land them alike: three are run). A difference in the
# last step recorded (KNOBS_CHECKSUMS_STEPS, 4 by default) has no module after it to spread to.
LINEAR_CE = re.compile(
    r"TOY_FUSED_LINEAR_CE: run [23] differs from run 1 in its checksums: first difference at "
    r"step (?P<step>\d), backward, lm_head \(weight\.grad\)"
    r"(?P<after>; \d+ more modules differ after it)?"
)
LAST_STEP = 3
EMBEDDING = re.compile(
    r"TOY_EMBED_GRAD_ATOMIC \+ TOY_EMBED_GRAD_PARALLEL: run [23] differs from run 1 in its "
    r"checksums: first difference at step \d, backward, embed \(weight\.grad\)"
    r"(; \d+ more modules? differs? after it)?"
)


def _assert_the_demo_locates_each_breaking_knob_and_nothing_else(out: str) -> None:
    """The demo's triage with `--compare checksums:DIR` locates its breaking knobs: the fused
    LM head + loss in the backward at the output layer, the embedding pair in the embedding's
    backward; the knobs reproducible alone report nothing."""
    start = out.index("$ knobs triage --profile bitwise ")
    end = out.index("(exit 1", start)
    lines = out[start : out.index("\n", end) + 1].splitlines(keepends=True)
    found = [line for line in lines if "differs from run 1" in line]
    assert len(found) == 2, out
    linear = LINEAR_CE.fullmatch(found[0].rstrip("\n"))
    assert linear is not None, found[0]
    if int(linear["step"]) < LAST_STEP:  # the next step's forward reads the weights it changed
        assert linear["after"] is not None, found[0]
    assert EMBEDDING.fullmatch(found[1].rstrip("\n")), found[1]
    shown = "".join(lines).replace(found[0], "LINEAR_CE\n").replace(found[1], "EMBEDDING\n")
    assert shown == DEMO_TRIAGE
