"""`knobs triage --cost`: what each knob costs when off, through the real command line.

Timings are never asserted tightly: the structure, the sign with a large margin,
and "within noise" for a knob that changes nothing (the noise made deterministic:
run 2 always prints a higher throughput than run 1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from knobregistry.registry import load_registry
from tests.conftest import run_knobs, write_tree

REGISTRY = """
version: 1
knobs:
  COST_FAST:
    default: "1"
    default_on: true
    triage: untriaged
  COST_NOOP:
    default: "1"
    default_on: true
    triage: untriaged
"""

JOB = """
import os, time
from pathlib import Path

fast = os.environ.get("COST_FAST", "1") != "0"
time.sleep(0.02 if fast else 0.3)
noise = 10 if Path.cwd().name == "run-2" else 0  # the same knob-free noise every time
print("tokens/s:", (200 if fast else 100) + noise)
print("loss 1.0")
"""

KEYS = {"on", "off", "off_over_on", "spread", "within_noise", "runs"}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})


def triage_json(project: Path, *args: str) -> dict[str, object]:
    done = run_knobs(
        "triage", "-c", "regex:^loss", "--format", "json", *args,
        "--", sys.executable, "job.py", cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document: dict[str, object] = json.loads(done.stdout)
    return document


def test_wall_time_prices_the_slow_knob_and_calls_the_other_noise(project: Path) -> None:
    cost = triage_json(project, "--cost", "wall", "--jobs", "2")["cost"]
    assert isinstance(cost, dict)
    assert cost["metric"] == "wall"
    assert cost["higher_is_better"] is False
    knobs = cost["knobs"]
    assert list(knobs) == ["COST_FAST", "COST_NOOP"]
    fast = knobs["COST_FAST"]
    assert set(fast) == KEYS
    assert fast["runs"] == 2
    assert fast["off"] > fast["on"] > 0
    assert fast["off_over_on"] > 1.5  # 0.3 s against 0.02 s, plus the interpreter's start
    assert fast["off_over_on"] - 1 > fast["spread"]
    assert fast["within_noise"] is False


def test_a_throughput_regex_with_deterministic_noise(project: Path) -> None:
    args = ("--cost", "regex:tokens/s: ([0-9.]+)", "--cost-higher-is-better")
    cost = triage_json(project, *args)["cost"]
    assert cost == {
        "metric": "regex:tokens/s: ([0-9.]+)",
        "higher_is_better": True,
        "knobs": {
            "COST_FAST": {
                "on": 205.0,
                "off": 105.0,
                "off_over_on": 1.9524,
                "spread": 0.0952,
                "within_noise": False,
                "runs": 2,
            },
            "COST_NOOP": {
                "on": 105.0,
                "off": 105.0,
                "off_over_on": 1.0,
                "spread": 0.0952,
                "within_noise": True,
                "runs": 2,
            },
        },
    }


def test_the_table_shows_the_ratio_and_the_noise(project: Path) -> None:
    done = run_knobs(
        "triage", "-c", "regex:^loss", "--cost", "regex:tokens/s: ([0-9.]+)",
        "--cost-higher-is-better", "--", sys.executable, "job.py", cwd=project,
    )  # fmt: skip
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[2].split() == ["sweep", "knobs", "on", "verdict", "runs", "off/on"]
    assert lines[5].split() == ["alone", "COST_FAST", "reproducible", "2", "1.95"]
    assert lines[6].split() == ["alone", "COST_NOOP", "reproducible", "2", "1.00", "(noise)"]
    assert "  COST_FAST: 1.95x, slower off (on 205, off 105; spread 9.5%)" in lines
    assert "  COST_NOOP: within noise (1.00x; spread 9.5%)" in lines


def test_no_match_is_not_measured(project: Path) -> None:
    cost = triage_json(project, "--cost", "regex:steps/s: ([0-9.]+)")["cost"]
    assert cost == {
        "metric": "regex:steps/s: ([0-9.]+)",
        "higher_is_better": False,
        "knobs": {"COST_FAST": None, "COST_NOOP": None},
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cost", "cpu"], "write wall or regex:PATTERN"),
        (["--cost", "regex:tokens/s: [0-9.]+"], "exactly one capture group"),
        (["--cost", "regex:(a)(b)"], "exactly one capture group"),
        (["--cost", "regex:("], "not a regular expression"),
        (["--cost", "wall", "--cost-higher-is-better"], "wall time is better lower"),
        (["--cost-higher-is-better"], "goes with --cost"),
    ],
)
def test_bad_cost_exits_2(project: Path, args: list[str], message: str) -> None:
    done = run_knobs("triage", *args, "--", sys.executable, "job.py", cwd=project)
    assert done.returncode == 2
    assert message in done.stderr


RECORDED = """
version: 1
knobs:
  COST_FAST:
    default: "1"
    default_on: true
    triage: untriaged
    cost: 'Unfused path: slower steps.'  # measured on MI355X by hand
    notes: Kept after cost.
  COST_NOOP:
    default: "1"
    default_on: true
    triage: untriaged
profiles:
  bitwise:
    kind: bitwise
    description: Everything off.
    env:
      COST_FAST: "0"
      COST_NOOP: "0"
"""


def test_record_writes_the_measurement_beside_the_prose(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": RECORDED, "job.py": JOB})
    args = ("--cost", "regex:tokens/s: ([0-9.]+)", "--cost-higher-is-better", "--record")
    done = run_knobs(
        "triage", "-c", "regex:^loss", *args, "--", sys.executable, "job.py", cwd=project
    )
    assert done.returncode == 0, done.stderr
    text = (project / "registry.yaml").read_text(encoding="utf-8")
    assert "    cost:\n      text: 'Unfused path: slower steps.'" in text  # its quoting kept
    assert "# measured on MI355X by hand" in text
    assert "    notes: Kept after cost.\n" in text
    registry = load_registry(project / "registry.yaml")
    fast, noop = registry.knobs["COST_FAST"], registry.knobs["COST_NOOP"]
    assert fast.cost == "Unfused path: slower steps."
    assert fast.measured is not None and noop.measured is not None
    assert (fast.measured.metric, fast.measured.off_over_on, fast.measured.runs) == (
        "regex:tokens/s: ([0-9.]+)",
        1.9524,  # 205 / 105: the medians with it on and off
        2,
    )
    assert noop.cost is None and noop.measured.off_over_on == 1.0
    explain = run_knobs("explain", "COST_FAST", cwd=project)
    assert "  measured   1.95x slower off (regex:tokens/s: ([0-9.]+); spread 9.5%, 2 runs" in (
        explain.stdout
    )
    export = run_knobs("export", "-p", "bitwise", cwd=project)
    header = " ".join(line[1:].strip() for line in export.stdout.splitlines() if line[:1] == "#")
    assert (
        "Measured price of what it turns off: 1.95x the run time with them on (the product "
        "of COST_FAST 1.95x, COST_NOOP 1.00x)."
    ) in header


def test_a_last_cost_line_keeps_its_comment_and_the_blank_line_after_it(tmp_path: Path) -> None:
    registry = (
        'version: 1\nknobs:\n  COST_FAST:\n    default: "1"\n    default_on: true\n'
        "    triage: untriaged\n    cost: 'Unfused path.'  # by hand\n\n"
        '  COST_NOOP:\n    default: "1"\n    default_on: true\n    triage: untriaged\n'
    )
    project = write_tree(tmp_path, {"registry.yaml": registry, "job.py": JOB})
    args = ("--cost", "regex:tokens/s: ([0-9.]+)", "--cost-higher-is-better", "--record")
    done = run_knobs(
        "triage", "-c", "regex:^loss", *args, "--", sys.executable, "job.py", cwd=project
    )
    assert done.returncode == 0, done.stderr
    text = (project / "registry.yaml").read_text(encoding="utf-8")
    assert "    cost:\n      text: 'Unfused path.' # by hand\n      measured:\n" in text
    assert "\n\n  COST_NOOP:\n" in text
