"""A sweep judges each setting once: `--bisect` and `--search` take the verdicts of the
knobs alone and the pairs the sweep judged, counted by a job that logs every run."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import run_knobs, write_tree

KNOBS = ("K1", "K2", "K3")
REGISTRY = "version: 1\nknobs:\n" + "".join(
    f'  {name}:\n    default: "1"\n    default_on: true\n    off_value: "0"\n'
    "    role: kernel\n    triage: untriaged\n"
    for name in KNOBS
)

# Logs the knobs on in each run; K1 and K3 break only together.
JOB = """
import os, random
from pathlib import Path

on = [name for name in ("K1", "K2", "K3") if os.environ.get(name) == "1"]
with (Path(os.environ["KNOBS_TRIAGE_ORIGIN"]) / "runs.log").open("a") as log:
    log.write(" + ".join(on or ["baseline"]) + "\\n")
print("step 1 loss 2.5")
if "K1" in on and "K3" in on:
    print("step 2 loss", random.random())
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})


def runs_of(project: Path) -> Counter[str]:
    return Counter((project / "runs.log").read_text().splitlines())


def test_bisect_after_pairs_runs_only_the_setting_no_sweep_judged(project: Path) -> None:
    done = run_knobs("triage", "--pairs", "--bisect", "--", sys.executable, "job.py", cwd=project)
    assert done.returncode == 1, done.stderr
    # ddmin asks for all three on, then K1 + K2, K3, K1, K2, K2 + K3, K1 + K3 and K1, K3
    # again: all but the first were judged alone or in pairs.
    assert runs_of(project) == {
        "baseline": 2,
        "K1": 2,
        "K2": 2,
        "K3": 2,
        "K1 + K2": 2,
        "K1 + K3": 2,
        "K2 + K3": 2,
        "K1 + K2 + K3": 2,
    }
    assert done.stdout.endswith(
        "\nReproducible alone: K1, K2, K3.\n"
        "Pairs: 3 swept; breaking together: K1 + K3.\n"
        "Bisect: all 3 knobs that were reproducible alone, on together, break "
        "reproducibility; a minimal set responsible: K1 + K3.\n"
        "Bisect spent 1 test (2 runs) and took 6 settings the sweep had judged; sweeping "
        "every pair of the 3 knobs takes 3 tests (6 runs).\n"
        "Runs of the command: 16 (baseline 2, alone 6, pairs 6, bisect 2).\n"
    )


def test_bisect_of_two_knobs_after_pairs_runs_nothing(project: Path) -> None:
    done = run_knobs(
        "triage", "-k", "K1", "-k", "K2", "--pairs", "--bisect",
        "--", sys.executable, "job.py",
        cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert runs_of(project) == {"baseline": 2, "K1": 2, "K2": 2, "K1 + K2": 2}
    assert done.stdout.endswith(
        "Pairs: 1 swept; none breaks reproducibility.\n"
        "Bisect: all 2 knobs that were reproducible alone, on together, are reproducible "
        "(as the pairs sweep judged them).\n"
        "Runs of the command: 8 (baseline 2, alone 4, pairs 2).\n"
    )


def test_the_search_after_bisect_runs_no_setting_twice(project: Path) -> None:
    done = run_knobs(
        "triage", "--bisect", "--search", "fastest-bitwise", "--knob", "K1", "--knob", "K2",
        "--knob", "K3", "--", sys.executable, "job.py",
        cwd=project,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    counted = runs_of(project)
    assert set(counted.values()) == {2}  # every setting run once, two runs each
    assert "K1 + K2 + K3" in counted and "K1 + K3" in counted
