"""Triage refuses a baseline that keeps on a knob the registry records as breaks-bitwise:
every setting would differ through it, and knobs reproducible alone would be called
breaking (golden message); --profile, turning it off, or --allow-known-breaking start it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import run_knobs, write_tree
from tests.test_triage_ownership import runs_logged

REGISTRY = """
version: 1
knobs:
  SYN_ATOMIC:
    default: "1"
    default_on: true
    off_value: "0"
    role: kernel
    triage: breaks-bitwise
  SYN_LOOSE:
    default: "1"
    default_on: true
    off_value: "0"
    role: kernel
    triage: breaks-bitwise
  SYN_A:
    default: "1"
    default_on: true
    off_value: "0"
    role: kernel
    triage: untriaged
  SYN_B:
    default: "1"
    default_on: true
    off_value: "0"
    role: kernel
    triage: untriaged
profiles:
  bitwise:
    description: Every knob not triaged reproducible off.
    kind: bitwise
    select:
      - {default_on: true, triage_not: reproducible, set: "off"}
"""

# Logs each run; SYN_ATOMIC and SYN_LOOSE on make every run differ.
JOB = """
import os, random
from pathlib import Path
with (Path(os.environ["KNOBS_TRIAGE_ORIGIN"]) / "runs.log").open("a") as log:
    log.write("run\\n")
print("step 1 loss 2.5")
if any(os.environ.get(k, "1") != "0" for k in ("SYN_ATOMIC", "SYN_LOOSE")):
    print("step 2 loss", random.random())
"""

KNOBS = ("-k", "SYN_A", "-k", "SYN_B")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})


def test_a_baseline_that_keeps_a_breaking_knob_on_is_refused(project: Path) -> None:
    done = run_knobs("triage", *KNOBS, "--", sys.executable, "job.py", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs triage: error: the baseline keeps SYN_ATOMIC, SYN_LOOSE on, which registry.yaml "
        "records as breaks-bitwise: they differ from run to run in every setting, so knobs "
        "reproducible alone would be judged breaking. Start from a profile that turns them off "
        "(--profile bitwise), turn them off (SYN_ATOMIC=0, SYN_LOOSE=0), or triage with them "
        "on as asked (--allow-known-breaking).\n"
    )
    assert runs_logged(project) == 0
    assert not (project / ".knobs").exists()  # refused before a journal was started


def test_one_knob_left_on_is_named_alone(project: Path) -> None:
    environment = {**os.environ, "SYN_LOOSE": "0"}
    done = run_knobs("triage", *KNOBS, "--", "true", cwd=project, env=environment)
    assert (done.returncode, done.stderr) == (
        2,
        "knobs triage: error: the baseline keeps SYN_ATOMIC on, which registry.yaml records as "
        "breaks-bitwise: it differs from run to run in every setting, so knobs reproducible "
        "alone would be judged breaking. Start from a profile that turns it off (--profile "
        "bitwise), turn it off (SYN_ATOMIC=0), or triage with it on as asked "
        "(--allow-known-breaking).\n",
    )


@pytest.mark.parametrize(
    ("args", "environment", "code"),
    [
        (["--profile", "bitwise", *KNOBS], {}, 0),  # the profile turns both off
        (list(KNOBS), {"SYN_ATOMIC": "0", "SYN_LOOSE": "0"}, 0),  # turned off by hand
        ([], {}, 1),  # every switch a candidate: both are off in the baseline, and judged
        (["--allow-known-breaking", *KNOBS], {}, 3),  # as asked: the baseline differs
    ],
)
def test_a_profile_the_knobs_off_or_allowing_it_starts_the_sweep(
    project: Path, args: list[str], environment: dict[str, str], code: int
) -> None:
    done = run_knobs(
        "triage", *args, "--", sys.executable, "job.py",
        cwd=project, env={**os.environ, **environment},
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    assert runs_logged(project) > 0
