"""The example's own run locates its breaking knobs with `--compare checksums:DIR`: the
fused LM head + loss in the backward at the output layer, the embedding pair in the
embedding's backward; the knobs reproducible alone report nothing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_knobs

TABLE = """\
knobs triage: PYTHON train.py --steps 10
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
"""

# The thread schedule decides in which step the adds first land in another order: any step,
# and which run shows it (two runs can land them alike: three are run). A difference in the
# last step's lm_head gradient has no module after it to spread to.
LINEAR_CE = re.compile(
    r"TOY_FUSED_LINEAR_CE: run [23] differs from run 1 in its checksums: first difference at "
    r"step (?P<step>\d), backward, lm_head \(weight\.grad\)"
    r"(?P<after>; \d+ more modules differ after it)?"
)
LAST_STEP = 9  # of --steps 10
EMBEDDING = re.compile(
    r"TOY_EMBED_GRAD_ATOMIC \+ TOY_EMBED_GRAD_PARALLEL: run [23] differs from run 1 in its "
    r"checksums: first difference at step \d, backward, embed \(weight\.grad\)"
    r"(; \d+ more modules? differs? after it)?"
)


def journals(project: Path) -> list[str]:
    """The triage journals under ``project``/.knobs (a user's `make demo` leaves its own)."""
    return sorted(p.name for p in (project / ".knobs" / "triage").glob("*"))


@pytest.mark.slow
def test_the_example_locates_each_breaking_knob_and_nothing_else(tmp_path: Path) -> None:
    before = journals(REPO / "examples")
    done = run_knobs(
        "triage", "--profile", "bitwise", "-k", "TOY_FUSED_LINEAR_CE",
        "-k", "TOY_EMBED_GRAD_PARALLEL", "-k", "TOY_EMBED_GRAD_ATOMIC", "--pairs",
        "--runs", "3", "--jobs", "2", "--compare", "checksums:checksums",
        "--dir", str(tmp_path / "journal"),
        "--", sys.executable, "train.py", "--steps", "10",
        cwd=REPO / "examples", env={"KNOBS_CHECKSUMS_STEPS": "10"},
    )  # fmt: skip
    assert journals(REPO / "examples") == before  # the journal went where the test said
    lines = done.stdout.replace(sys.executable, "PYTHON").splitlines(keepends=True)
    found = [line for line in lines if "differs from run 1" in line]
    assert len(found) == 2, done.stdout + done.stderr
    linear = LINEAR_CE.fullmatch(found[0].rstrip("\n"))
    assert linear is not None, found[0]
    if int(linear["step"]) < LAST_STEP:  # the next step's forward reads the weights it changed
        assert linear["after"] is not None, found[0]
    assert EMBEDDING.fullmatch(found[1].rstrip("\n")), found[1]
    shown = "".join(lines).replace(found[0], "LINEAR_CE\n").replace(found[1], "EMBEDDING\n")
    assert (done.returncode, shown) == (1, TABLE)
