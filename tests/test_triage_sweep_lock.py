"""One sweep, one owner (row 4 of issue 41): a sweep holds a lock on its journal for its
whole life, so `--resume` of a sweep that is still running exits 2 naming its process and
touches nothing (its runs go on, its journal and runs' folder stay as they are), and of two
resumes of one killed sweep only one runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from knobregistry._io.procfs import alive
from knobregistry.triage.journal import Journal, JournalError
from tests.test_triage_resume import (
    HANG_GUARD_S,
    HEADER,
    JOB,
    KNOBS,
    REGISTRY,
    journal_lines,
    logged,
    wait_until,
)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "registry.yaml").write_text(REGISTRY, encoding="utf-8")
    (tmp_path / "job.py").write_text(JOB, encoding="utf-8")
    return tmp_path


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def _running(message: str, pid: int) -> str:
    start = (
        "knobs triage: error: cannot resume: the sweep journaled in sweep is still running: "
        f"process {pid} ("
    )
    assert message.startswith(start), message
    assert message.endswith(
        "); wait for it to finish, or stop it, then resume it (nothing was run or stopped).\n"
    ), message
    return message


def _start(project: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*KNOBS, "triage", *args],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _resume(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`knobs triage --resume sweep`, bounded: a resume that runs instead of refusing fails."""
    process = _start(project, "--resume", "sweep", *args)
    try:
        out, err = process.communicate(timeout=HANG_GUARD_S)
    except subprocess.TimeoutExpired:
        _stop(process)
        pytest.fail("the resume ran the sweep instead of refusing")
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)  # triage stops its runs on SIGTERM
    process.communicate(timeout=HANG_GUARD_S)


def test_resume_of_a_live_sweep_exits_2_naming_it_and_touches_nothing(project: Path) -> None:
    (project / "hold").write_text("3")  # the fourth run hangs: the sweep is live
    sweep = project / "sweep"
    process = _start(project, "--dir", "sweep", "--", sys.executable, "job.py")
    try:
        wait_until(lambda: len(logged(project)) == 4 and journal_lines(sweep, "run") == 3, process)
        hanging = logged(project)[3]
        before = _snapshot(sweep)
        resumed = _resume(project, "--yes")
        assert (resumed.returncode, resumed.stdout) == (2, "")
        _running(resumed.stderr, process.pid)
        assert alive(hanging)  # its run was not stopped
        assert _snapshot(sweep) == before  # nor its journal nor its runs' folder changed
        assert len(logged(project)) == 4  # and nothing ran
    finally:
        _stop(process)


def test_two_resumes_of_one_killed_sweep_cannot_both_run(project: Path) -> None:
    (project / "hold").write_text("3")
    sweep = project / "sweep"
    process = _start(project, "--dir", "sweep", "--", sys.executable, "job.py")
    wait_until(lambda: len(logged(project)) == 4 and journal_lines(sweep, "run") == 3, process)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=HANG_GUARD_S)
    (project / "hold").write_text("5")  # the first resume's second run hangs
    first = _start(project, "--resume", "sweep")
    try:
        wait_until(lambda: len(logged(project)) == 6, first)
        before = _snapshot(sweep)
        second = _resume(project)
        assert (second.returncode, second.stdout) == (2, "")
        _running(second.stderr, first.pid)
        assert _snapshot(sweep) == before
        assert len(logged(project)) == 6
        assert first.poll() is None
    finally:
        _stop(first)


def test_one_process_may_open_the_journal_it_holds(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path / "t", HEADER)
    again = Journal.open(tmp_path / "t")
    assert again.header == journal.header


def test_another_process_may_not_while_it_is_held(tmp_path: Path) -> None:
    Journal.create(tmp_path / "t", HEADER)
    script = (
        "import sys; from pathlib import Path; from knobregistry.triage.journal import Journal\n"
        "try:\n    Journal.open(Path(sys.argv[1]))\nexcept Exception as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "t")], capture_output=True, text=True
    )
    assert done.stdout.startswith(
        f"the sweep journaled in {tmp_path / 't'} is still running: process {os.getpid()} ("
    )


def test_the_lock_goes_with_the_journal(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path / "t", HEADER)
    journal.close()
    script = (
        "import sys; from pathlib import Path; from knobregistry.triage.journal import Journal\n"
        "Journal.open(Path(sys.argv[1])); print('opened')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "t")], capture_output=True, text=True
    )
    assert done.stdout == "opened\n", done.stderr
    with pytest.raises(JournalError):
        Journal.open(tmp_path / "missing")
