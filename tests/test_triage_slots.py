"""Slots: each of `--jobs K` concurrent runs gets KNOBS_TRIAGE_SLOT, its own MASTER_PORT and,
with --devices-per-run, devices no other live run has; combinations that do not fit are refused."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from knobregistry.triage.slots import SlotError, make_slots
from tests.conftest import run_knobs, write_tree

REGISTRY = """\
version: 1
knobs:
  SYN_A:
    default: "1"
    default_on: true
    triage: untriaged
  SYN_B:
    default: "1"
    default_on: true
    triage: untriaged
"""

# Each run logs what it was given, then waits until two runs are in flight at once
# (so the two runs of one setting overlap), and prints nothing that differs.
JOB = """
import os, sys, time
from pathlib import Path

log = Path(os.environ["KNOBS_TRIAGE_ORIGIN"]) / "runs.log"
with log.open("a") as out:
    print(os.environ["KNOBS_TRIAGE_SLOT"], os.environ["CUDA_VISIBLE_DEVICES"],
          os.environ["MASTER_PORT"], os.environ["KNOBS_TRIAGE_RUN_DIR"], file=out, flush=True)
marker = log.with_name(os.environ["KNOBS_TRIAGE_RUN_DIR"].replace("/", "_"))
marker.write_text("live")
deadline = time.monotonic() + 30
while sum(1 for p in log.parent.glob("*_run-*") if p.read_text() == "live") < 2:
    if time.monotonic() > deadline:
        sys.exit("no other run came")
    time.sleep(0.02)
time.sleep(0.2)
marker.write_text("done")
print("step 1 loss 2.5")
"""


def test_two_concurrent_slots_get_disjoint_devices_and_different_ports(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})
    done = run_knobs(
        "triage", "-k", "SYN_A", "--jobs", "2", "--devices-per-run", "3",
        "--", sys.executable, "job.py",
        cwd=project, env={"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6", "MASTER_PORT": "40100"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    runs = [line.split() for line in (project / "runs.log").read_text().splitlines()]
    assert len(runs) == 4  # two of the baseline, two of SYN_A: each pair ran at once
    given = {(slot, devices, port) for slot, devices, port, _ in runs}
    assert given == {("0", "0,1,2", "40100"), ("1", "3,4,5", "40101")}
    for first, second in (runs[0:2], runs[2:4]):  # the two runs of one setting, together
        assert first[3].rsplit("/", 1)[0] == second[3].rsplit("/", 1)[0]
        assert first[0] != second[0]
        assert set(first[1].split(",")).isdisjoint(second[1].split(","))
        assert first[2] != second[2]


def test_slots_split_the_callers_list_in_its_own_variable() -> None:
    slots = make_slots(2, 2, {"ROCR_VISIBLE_DEVICES": "4, 5,6,7"})
    assert slots.environments == (
        {"KNOBS_TRIAGE_SLOT": "0", "MASTER_PORT": "29500", "ROCR_VISIBLE_DEVICES": "4,5"},
        {"KNOBS_TRIAGE_SLOT": "1", "MASTER_PORT": "29501", "ROCR_VISIBLE_DEVICES": "6,7"},
    )
    # HIP renumbers what ROCr shows: the list HIP applies last is the one to split.
    both = make_slots(2, 1, {"ROCR_VISIBLE_DEVICES": "4,5", "HIP_VISIBLE_DEVICES": "0,1"})
    assert [env["HIP_VISIBLE_DEVICES"] for env in both.environments] == ["0", "1"]
    assert all("ROCR_VISIBLE_DEVICES" not in env for env in both.environments)


def test_without_a_list_the_count_torch_reports_is_split() -> None:
    rocm = make_slots(4, 2, {}, count_devices=lambda: (8, True))
    assert [env["HIP_VISIBLE_DEVICES"] for env in rocm.environments] == [
        "0,1",
        "2,3",
        "4,5",
        "6,7",
    ]
    cuda = make_slots(1, 8, {}, count_devices=lambda: (8, False))
    assert cuda.environments == (
        {"KNOBS_TRIAGE_SLOT": "0", "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7"},
    )


def test_one_job_without_devices_changes_only_the_slot_variable() -> None:
    def never() -> tuple[int, bool]:
        raise AssertionError("devices are counted only for --devices-per-run")

    assert make_slots(1, None, {"MASTER_PORT": "1234"}, never).environments == (
        {"KNOBS_TRIAGE_SLOT": "0"},
    )
    ports = make_slots(3, None, {"MASTER_PORT": "1234"}, never).environments
    assert [env["MASTER_PORT"] for env in ports] == ["1234", "1235", "1236"]


def test_no_devices_is_refused() -> None:
    with pytest.raises(SlotError, match=r"no devices are visible \(torch reports 0\)"):
        make_slots(2, 1, {}, count_devices=lambda: (0, False))
    with pytest.raises(SlotError) as refused:
        make_slots(2, 1, {}, count_devices=lambda: (1, False))
    assert str(refused.value) == (
        "--jobs 2 with --devices-per-run 1 needs 2 devices, but 1 device is visible "
        "(torch reports 1); lower --jobs to 1."
    )


@pytest.mark.parametrize(
    ("args", "devices", "message"),
    [
        (
            ["--jobs", "4", "--devices-per-run", "8"],
            "0,1,2,3,4,5,6,7",
            "--jobs 4 with --devices-per-run 8 needs 32 devices, but 8 devices are visible "
            "(CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7); lower --jobs to 1, or --devices-per-run "
            "to 2.",
        ),
        (
            ["--jobs", "9", "--devices-per-run", "1"],
            "0,1,2,3,4,5,6,7",
            "--jobs 9 with --devices-per-run 1 needs 9 devices, but 8 devices are visible "
            "(CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7); lower --jobs to 8.",
        ),
        (
            ["--devices-per-run", "16"],
            "0,1,2,3,4,5,6,7",
            "--devices-per-run 16 is more than the 8 devices visible "
            "(CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7); give at most 8.",
        ),
        (
            ["--devices-per-run", "1"],
            "",
            "--devices-per-run 1: no devices are visible (CUDA_VISIBLE_DEVICES=); list the "
            "devices to split in CUDA_VISIBLE_DEVICES (or HIP_VISIBLE_DEVICES, "
            "ROCR_VISIBLE_DEVICES), e.g. CUDA_VISIBLE_DEVICES=0,1,2,3.",
        ),
    ],
)
def test_a_combination_that_does_not_fit_is_refused_with_the_numbers(
    tmp_path: Path, args: list[str], devices: str, message: str
) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY})
    done = run_knobs(
        "triage", "-k", "SYN_A", *args, "--", "true",
        cwd=project, env={"CUDA_VISIBLE_DEVICES": devices},
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"knobs triage: error: {message}\n",
    )
