"""`knobs triage --search fastest-bitwise`: the fastest set that stays reproducible together.

The job's speed is a number it prints, set by the knobs (so the order of benefit is
exact), and its nondeterminism is real: random bytes in its result line when B is on,
or when A and C are on together. A is the fastest, then C, then D.
"""

from __future__ import annotations

import json
import sys
from itertools import combinations
from pathlib import Path

import pytest

from knobregistry.profiles import resolve_profile
from knobregistry.registry import Sweep, Verdict, load_registry
from tests.conftest import run_knobs, write_tree

KNOBS = ("T_A", "T_B", "T_C", "T_D")

REGISTRY = (
    """\
version: 1
knobs:
"""
    + "".join(
        f"""  {name}:
    default: "1"
    default_on: true
    off_value: "0"
    role: kernel
    triage: untriaged
"""
        for name in KNOBS
    )
    + """
profiles:
  # Everything not known to be reproducible off.
  bitwise:
    description: Bit for bit.
    kind: bitwise
    select:
      - {default_on: true, triage_not: [reproducible, exempt], set: "off"}
"""
)

JOB = """
import os

on = {name: os.environ.get(name, "1") != "0" for name in ("T_A", "T_B", "T_C", "T_D")}
racy = on["T_B"] or (on["T_A"] and on["T_C"])
print("result", os.urandom(8).hex() if racy else "0")
speed = 100.0
for name, gain in (("T_A", 1.4), ("T_B", 1.2), ("T_C", 1.1), ("T_D", 1.05)):
    speed *= gain if on[name] else 1.0
print(f"speed: {speed}")
"""

SEARCH = (
    "--search", "fastest-bitwise", "-c", "regex:^result",
    "--cost", "regex:speed: ([0-9.]+)", "--cost-higher-is-better",
)  # fmt: skip

GOLDEN = """\
knobs triage: {python} job.py
compare: regex:^result; runs per setting: 2; profile: bitwise; candidates: 4
sweep      knobs on    verdict          runs   off/on
─────────────────────────────────────────────────────
baseline   -           reproducible        2
alone      T_A         reproducible        2   1.40
alone      T_B         breaks-bitwise      2   1.20
alone      T_C         reproducible        2   1.10
alone      T_D         reproducible        2   1.05
search     T_A + T_C   breaks-bitwise      2
search     T_A + T_D   reproducible        2

T_B: {b_difference}
T_A + T_C: {ac_difference}

Cost of turning each knob off (regex:speed: ([0-9.]+), higher is better; the median of 2 runs per setting; off/on > 1: slower off):
  T_A: 1.40x, slower off (on 140, off 100; spread 0.0%)
  T_B: 1.20x, slower off (on 120, off 100; spread 0.0%)
  T_C: 1.10x, slower off (on 110, off 100; spread 0.0%)
  T_D: 1.05x, slower off (on 105, off 100; spread 0.0%)

Breaks bitwise reproducibility alone: T_B.
Reproducible alone: T_A, T_C, T_D.
Search for the fastest bitwise combination (benefit: times faster on, by regex:speed: ([0-9.]+)):
  1. T_A (1.40x): kept; T_A on alone: reproducible
  2. T_C (1.10x): left off; T_A + T_C on together: not reproducible; the knobs that break together: T_A + T_C
  3. T_D (1.05x): kept; T_A + T_D on together: reproducible
Verified as a whole: T_A + T_D.
Never turned back on (they break or fail alone): T_B.
The search spent 2 tests (4 runs); every combination of the 4 candidates takes 16 settings (32 runs).
Runs of the command: 14 (baseline 2, alone 8, search 4).
"""  # noqa: E501


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})
    (root / ".git").mkdir()
    return root


def differences(stdout: str) -> dict[str, str]:
    """The difference lines, by setting (their random bytes differ every time)."""
    found = {}
    for line in stdout.splitlines():
        label, colon, rest = line.partition(": ")
        if colon and rest.startswith("run 2 differs from run 1"):
            found[label] = rest
    return found


def test_golden_search_keeps_the_fastest_knobs_that_stay_reproducible_together(
    project: Path,
) -> None:
    done = run_knobs("triage", *SEARCH, "--", sys.executable, "job.py", cwd=project)
    assert done.returncode == 1, done.stderr  # T_B, and T_A + T_C, break
    found = differences(done.stdout)
    assert sorted(found) == ["T_A + T_C", "T_B"]
    expected = GOLDEN.format(
        python=sys.executable, b_difference=found["T_B"], ac_difference=found["T_A + T_C"]
    )
    assert done.stdout == expected


def test_the_search_spends_fewer_runs_than_every_combination(project: Path) -> None:
    done = run_knobs(
        "triage", *SEARCH, "--format", "json", "--", sys.executable, "job.py", cwd=project
    )  # fmt: skip
    document = json.loads(done.stdout)
    search = document["search"]
    assert [entry["knob"] for entry in search["order"]] == ["T_A", "T_C", "T_D"]
    assert search["never"] == ["T_B"]
    assert search["verified"] == ["T_A", "T_D"]
    assert [(s["knob"], s["kept"], s["culprit"]) for s in search["steps"]] == [
        ("T_A", True, []),
        ("T_C", False, ["T_A", "T_C"]),
        ("T_D", True, []),
    ]
    # Every combination of 4 knobs is 16 settings of 2 runs; the whole triage spent 14.
    assert search["runs"] == 4
    assert document["runs_spent"] == {
        "total": 14, "baseline": 2, "alone": 8, "pairs": 0, "bisect": 0, "search": 4,
    }  # fmt: skip
    assert document["runs_spent"]["total"] < 2**4 * 2


def test_record_writes_the_verified_profile_and_it_exports(project: Path) -> None:
    done = run_knobs(
        "triage", *SEARCH, "--record", "--", sys.executable, "job.py", cwd=project
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stdout.endswith(
        "  profile bitwise-fast: bitwise with T_A + T_D back on, verified together\n"
    )
    registry = load_registry(project / "registry.yaml")
    profile = registry.profiles["bitwise-fast"]
    assert profile.extends == "bitwise"
    assert profile.verified is not None
    assert profile.verified.sweep is Sweep.SEARCH
    assert profile.verified.verdict is Verdict.REPRODUCIBLE
    assert profile.verified.combined_with == ("T_A", "T_D")
    # The knobs that break, alone or together, are recorded so; bitwise turns them off.
    triaged = {name: registry.knobs[name].triage.value for name in KNOBS}
    assert triaged == {
        "T_A": "breaks-bitwise", "T_B": "breaks-bitwise",
        "T_C": "breaks-bitwise", "T_D": "reproducible",
    }  # fmt: skip
    resolved = resolve_profile(registry, "bitwise-fast")
    assert dict(resolved.env) == {"T_A": "1", "T_B": "0", "T_C": "0", "T_D": "1"}
    # Recording the same search again changes nothing but what is the same experiment.
    before = (project / "registry.yaml").read_text(encoding="utf-8")
    again = run_knobs("triage", *SEARCH, "--record", "--", sys.executable, "job.py", cwd=project)
    assert again.returncode in (0, 1), again.stderr
    assert (project / "registry.yaml").read_text(encoding="utf-8").count("bitwise-fast:") == 1
    assert "verified:" in before


def test_a_hand_written_profile_of_that_name_is_never_replaced(project: Path) -> None:
    registry = project / "registry.yaml"
    registry.write_text(
        REGISTRY + "  bitwise-fast:\n    description: Mine.\n    kind: custom\n", encoding="utf-8"
    )
    done = run_knobs("triage", *SEARCH, "--record", "--", sys.executable, "job.py", cwd=project)
    assert done.returncode == 2
    assert done.stderr.endswith(
        "knobs triage: error: registry.yaml: profile 'bitwise-fast' exists and was not written "
        "by a search, so it was left as it is; name another with --search-profile NAME. Nothing "
        "was recorded.\n"
    )
    assert "description: Mine." in registry.read_text(encoding="utf-8")


BREAKS = {frozenset({"T_B"}), frozenset({"T_A", "T_C"})}


def test_the_search_result_is_the_best_reproducible_set_brute_force_finds(
    tmp_path: Path,
) -> None:
    """Every combination judged by rule (a set breaks when it holds a breaking set):
    the search's set is the one of largest benefit among the reproducible ones."""
    gains = {"T_A": 1.4, "T_B": 1.2, "T_C": 1.1, "T_D": 1.05}

    def reproducible(subset: frozenset[str]) -> bool:
        return not any(b <= subset for b in BREAKS)

    def benefit(subset: frozenset[str]) -> float:
        product = 1.0
        for name in subset:
            product *= gains[name]
        return product

    subsets = [frozenset(c) for n in range(5) for c in combinations(KNOBS, n)]
    best = max((s for s in subsets if reproducible(s)), key=benefit)
    assert best == frozenset({"T_A", "T_D"})
    # The same as the search verified, through the command line above.
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})
    done = run_knobs(
        "triage", *SEARCH, "-f", "json", "--", sys.executable, "job.py", cwd=project
    )  # fmt: skip
    assert frozenset(json.loads(done.stdout)["search"]["verified"]) == best


def test_search_without_cost_orders_by_wall_time_and_defaults_to_bitwise(project: Path) -> None:
    done = run_knobs(
        "triage", "--search", "fastest-bitwise", "-c", "regex:^result", "-f", "json",
        "--", sys.executable, "job.py", cwd=project,
    )  # fmt: skip
    document = json.loads(done.stdout)
    assert document["profile"] == "bitwise"
    assert document["cost"]["metric"] == "wall"
    search = document["search"]
    assert search["never"] == ["T_B"]
    # Wall time says nothing of the printed speed: any order, and a knob can even
    # measure slower on by chance; never both of the two that break together.
    ordered = {entry["knob"] for entry in search["order"]}
    assert ordered | {entry["knob"] for entry in search["slower"]} == {"T_A", "T_C", "T_D"}
    verified = set(search["verified"])
    assert verified <= ordered
    assert not {"T_A", "T_C"} <= verified


def test_check_tells_a_verified_profile_from_one_assembled_from_single_verdicts(
    project: Path,
) -> None:
    registry = project / "registry.yaml"
    assembled = REGISTRY.replace("triage: untriaged", "triage: reproducible")
    registry.write_text(assembled, encoding="utf-8")
    done = run_knobs("check", cwd=project)
    assert done.returncode == 0, done.stdout  # a warning does not fail the check
    assert done.stdout == (
        "registry.yaml:30:3: KNB112 warning: profile 'bitwise' (kind bitwise) leaves on 4 knobs "
        "triaged reproducible one at a time (T_A, T_B, T_C, T_D), and no recorded run had "
        "them on together: knobs reproducible alone can break reproducibility together.\n"
        "    run `knobs triage --profile bitwise --record -- COMMAND` (its baseline runs the "
        "profile as a whole), or `knobs triage --profile bitwise --search fastest-bitwise "
        "--record -- COMMAND`.\n"
        "\n"
        "Found 1 warning: 4 knobs in 2 files checked against registry.yaml (policy all).\n"
    )
    # The search records what breaks, and writes a profile verified as a whole.
    registry.write_text(REGISTRY, encoding="utf-8")
    run_knobs("triage", *SEARCH, "--record", "--", sys.executable, "job.py", cwd=project)
    done = run_knobs("check", cwd=project)
    assert (done.returncode, done.stdout) == (
        0,
        "No problems: 4 knobs in 2 files checked against registry.yaml (policy all).\n",
    )
    # A knob turned on by hand beyond the verified run is held to its own triage again.
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace("match: [T_A, T_D]", "match: [T_A, T_C, T_D]"), "utf-8")
    done = run_knobs("check", cwd=project)
    assert done.returncode == 1
    assert "KNB101 error: profile 'bitwise-fast' (kind bitwise) leaves T_C on" in done.stdout


SLOW_JOB = """
import os
slow = os.environ.get("T_A", "1") != "0"
fast = os.environ.get("T_D", "1") != "0"
print("result 0")
print(f"speed: {100.0 * (0.5 if slow else 1.0) * (1.05 if fast else 1.0)}")
"""


def test_a_knob_slower_on_than_off_is_never_turned_back_on(project: Path) -> None:
    (project / "job.py").write_text(SLOW_JOB, encoding="utf-8")
    done = run_knobs(
        "triage", *SEARCH, "-k", "T_A", "-k", "T_D", "--", sys.executable, "job.py", cwd=project
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("Reproducible alone: T_A, T_D.\n")[1] == (
        "Search for the fastest bitwise combination (benefit: times faster on, by "
        "regex:speed: ([0-9.]+)):\n"
        "  1. T_D (1.05x): kept; T_D on alone: reproducible\n"
        "Verified as a whole: T_D.\n"
        "Left off, as they are slower on than off: T_A (0.50x).\n"
        "The search spent 0 tests (0 runs); every combination of the 2 candidates takes 4 "
        "settings (8 runs).\n"
        "Runs of the command: 6 (baseline 2, alone 4).\n"
    )
