"""`--jobs` within what the machine can use (row 9 of issue 41): `knobs scan` at most 4 worker
processes per CPU, `knobs triage` at most 1,024 runs at once; anything else is one line and
exit 2, before a slot, a thread or a process is made."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from knobregistry.commands.jobs import scan_most
from knobregistry.triage.slots import MOST_JOBS as TRIAGE_MOST
from scanner.run.pool import default_jobs
from tests.conftest import run_knobs, write_tree

REGISTRY = """
version: 1
knobs:
  SYN_A:
    default: "1"
    default_on: true
    triage: untriaged
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "src/m.py": "X = 1\n"})


def test_scan_most_is_four_per_cpu() -> None:
    assert scan_most() == 4 * default_jobs()


@pytest.mark.parametrize("value", ["1000000000", "1" + "0" * 5000])
def test_scan_refuses_more_jobs_than_the_machine_can_use(project: Path, value: str) -> None:
    done = run_knobs("scan", "--jobs", value, "src", cwd=project)
    shown = value if len(value) <= 20 else value[:20] + "..."
    cpus = default_jobs()
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"knobs scan: error: --jobs {shown} is more worker processes than this machine can use: "
        f"give at most {4 * cpus} (4 per CPU, {cpus} CPU{'s' if cpus > 1 else ''}).\n"
    )


@pytest.mark.parametrize("value", ["0", "-3", "two", "1.5"])
def test_scan_refuses_what_is_not_a_count(project: Path, value: str) -> None:
    done = run_knobs("scan", "--jobs", value, "src", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"knobs scan: error: --jobs {value} is not a number of worker processes: give a "
        f"whole number from 1 to {scan_most()}.\n"
    )


def test_scan_takes_the_most_it_allows(project: Path) -> None:
    done = run_knobs("scan", "-j", str(scan_most()), "src", cwd=project)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("value", ["1000000000", "1025", "1" + "0" * 5000])
def test_triage_refuses_more_runs_at_once_than_it_makes(project: Path, value: str) -> None:
    done = run_knobs("triage", "--jobs", value, "--", sys.executable, "-c", "print(1)", cwd=project)
    shown = value if len(value) <= 20 else value[:20] + "..."
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"knobs triage: error: --jobs {shown} is more runs at once than triage makes: give at "
        f"most {TRIAGE_MOST}.\n"
    )
    assert not (project / ".knobs").exists()  # refused before a journal was made


def test_triage_refuses_what_is_not_a_count(project: Path) -> None:
    done = run_knobs("triage", "--jobs", "0", "--", sys.executable, "-c", "print(1)", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "knobs triage: error: --jobs 0 is not a number of runs at once: give a whole number "
        f"from 1 to {TRIAGE_MOST}.\n"
    )
