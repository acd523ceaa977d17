"""Triage owns only what it made, and trusts no journal (issue 26, round 2): a folder it did
not make survives `--dir .`; `--resume` stops only the process groups it started and
journaled; a damaged or edited journal is refused (exit 2, one line) before anything runs,
and an edited command runs only when the user says so."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from knobregistry._io import procfs
from knobregistry._io.procfs import alive
from tests.conftest import CLI_ENV, write_tree

REGISTRY = """
version: 1
knobs:
  SYN_CLEAN:
    default: "1"
    default_on: true
    triage: untriaged
  SYN_RUNDIR:
    default: "1"
    default_on: true
    triage: untriaged
"""

# Logs its pid where triage was started from; SYN_RUNDIR makes the runs differ.
JOB = """
import os
from pathlib import Path

with (Path(os.environ["KNOBS_TRIAGE_ORIGIN"]) / "runs.log").open("a") as log:
    log.write(f"{os.getpid()}\\n")
print("step 1 loss 2.5")
if os.environ.get("SYN_RUNDIR") == "1":
    print("written in", Path.cwd().name)
"""
HANG_GUARD_S = 60  # a hang fails the test instead of blocking the suite; nothing is timed
DAMAGED = "; the journal is damaged or was edited: start a new sweep.\n"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": JOB})


def runs_logged(project: Path) -> int:
    log = project / "runs.log"
    return len(log.read_text().split()) if log.exists() else 0


def knobs(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`knobs ARGS` in ``project``; a hang is a failure, not a blocked suite."""
    return knobs_with(project, {}, *args)


def knobs_with(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`knobs ARGS` in ``project`` with ``env`` over the test's environment."""
    environment = {**os.environ, **CLI_ENV, **env}
    try:
        return subprocess.run(
            [sys.executable, "-m", "knobregistry", *args],
            cwd=project,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`knobs {' '.join(args)}` did not end")


def swept(project: Path, *args: str) -> Path:
    """A finished sweep of SYN_CLEAN in ``project``/sweep."""
    done = knobs(project, "triage", "--dir", "sweep", *args, "--", sys.executable, "job.py")
    assert done.returncode in (0, 1), done.stderr
    return project / "sweep"


def header_only(sweep: Path, **changes: Any) -> None:
    """Keep the journal's header alone (as if triage died before its first run ended),
    with ``changes`` made to it."""
    path = sweep / "journal.jsonl"
    header = json.loads(path.read_text().splitlines()[0])
    header.update(changes)
    path.write_text(json.dumps(header) + "\n")


# --- 1. triage removes only what it made --------------------------------------------------


def test_a_folder_triage_did_not_make_survives_a_sweep_in_the_current_folder(
    project: Path,
) -> None:
    write_tree(
        project,
        {
            "runs/events.out.tfevents": "tensorboard's\n",  # a TensorBoard log folder
            "probe/notes.txt": "mine\n",
            "knobs-runs/notes.txt": "mine too\n",
        },
    )
    before = sorted(p.name for p in project.iterdir())
    done = knobs(
        project, "triage", "--dir", ".", "-k", "SYN_CLEAN", "--format", "json",
        "--", sys.executable, "job.py",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs_spent"]["total"] == 4
    assert (project / "runs" / "events.out.tfevents").read_text() == "tensorboard's\n"
    assert (project / "probe" / "notes.txt").read_text() == "mine\n"
    assert (project / "knobs-runs" / "notes.txt").read_text() == "mine too\n"
    after = sorted(p.name for p in project.iterdir())
    assert after == sorted([*before, "journal.jsonl", "runs.log"])  # its runs' folder went


def test_a_folder_holding_files_keeps_them_and_gets_the_journal(project: Path) -> None:
    write_tree(project, {"results/keep.txt": "kept\n", "results/runs/old/log": "old\n"})
    done = knobs(
        project, "triage", "--dir", "results", "-k", "SYN_CLEAN", "--", sys.executable, "job.py"
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (project / "results").iterdir()) == [
        "journal.jsonl",
        "keep.txt",
        "runs",
    ]
    assert (project / "results" / "runs" / "old" / "log").read_text() == "old\n"


# --- 2. --resume stops only what it started -----------------------------------------------


def session(cwd: Path, *command: str) -> subprocess.Popen[bytes]:
    """A process group of its own (a session leader), as a run of triage is."""
    return subprocess.Popen(
        command or ("sleep", "300"),
        cwd=cwd,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_resume_leaves_alone_processes_it_did_not_start_wherever_they_work(
    project: Path, stopped_at_end: list[subprocess.Popen[bytes]]
) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    (sweep / "runs").mkdir()  # the user's own, e.g. where a TensorBoard writes
    others = [session(sweep / "runs"), session(sweep), session(project)]
    stopped_at_end.extend(others)
    done = knobs(project, "triage", "--resume", "sweep")
    assert done.returncode == 0, done.stderr
    assert [alive(p.pid) for p in others] == [True, True, True]
    assert "stopped" not in done.stderr


def test_resume_never_stops_the_group_of_the_shell_it_was_started_from(
    project: Path, stopped_at_end: list[subprocess.Popen[bytes]]
) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    (sweep / "runs").mkdir()
    # The shell works in the triage folder and starts triage in a process group of its own
    # (as an interactive shell does with a job), then waits for the next command.
    script = (
        "import os, subprocess, sys, time\n"
        f"done = subprocess.run({[sys.executable, '-m', 'knobregistry', 'triage']!r} + "
        f"['--resume', {str(sweep)!r}], cwd={str(project)!r}, start_new_session=True,"
        " capture_output=True, text=True)\n"
        "open('triage.out', 'w').write(f'{done.returncode}\\n{done.stderr}')\n"
        "time.sleep(300)\n"
    )
    shell = session(sweep / "runs", sys.executable, "-c", script)
    stopped_at_end.append(shell)
    out = sweep / "runs" / "triage.out"
    for _ in range(HANG_GUARD_S * 20):
        if out.exists() or shell.poll() is not None:
            break
        subprocess.run(["sleep", "0.05"], check=True)
    assert alive(shell.pid), "the shell was stopped"
    assert out.read_text().startswith("0\n"), out.read_text()


# --- 4. the journal is untrusted input ------------------------------------------------------


def test_a_journal_edited_below_the_minimum_runs_is_refused_before_anything_runs(
    project: Path,
) -> None:
    sweep = swept(project, "-k", "SYN_RUNDIR")  # breaks: its two runs print their folders
    header_only(sweep, runs=1)  # with one run a setting, it could never differ
    logged = runs_logged(project)
    done = knobs(project, "triage", "--resume", "sweep")
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "knobs triage: error: cannot resume: sweep/journal.jsonl:1: runs: must be at least 2, "
        "got 1" + DAMAGED,
    )
    assert runs_logged(project) == logged


def test_a_journal_that_is_no_regular_file_fails_at_once(project: Path) -> None:
    (project / "fifo").mkdir()
    os.mkfifo(project / "fifo" / "journal.jsonl")
    (project / "zero").mkdir()
    (project / "zero" / "journal.jsonl").symlink_to("/dev/zero")
    (project / "folder" / "journal.jsonl").mkdir(parents=True)
    for name, kind in [("fifo", "a named pipe"), ("zero", "a device"), ("folder", "a folder")]:
        done = knobs(project, "triage", "--resume", name)
        assert (done.returncode, done.stdout, done.stderr) == (
            2,
            "",
            f"knobs triage: error: cannot resume: cannot read {name}/journal.jsonl: it is "
            f"{kind}, not a regular file.\n",
        )


# Writes `edited` where triage was started from: the edit ran.
EDITED = 'import os; open(os.environ["KNOBS_TRIAGE_ORIGIN"] + "/edited", "a"); print("loss 2.5")'


def test_an_edited_command_runs_only_with_yes(project: Path) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    header_only(sweep, command=["python3", "-c", EDITED])
    shown = f"knobs triage: the sweep's command: `python3 -c '{EDITED}'`."
    changed = "the journal's command was changed since the sweep started (its seal does not match)"
    done = knobs(project, "triage", "--resume", "sweep")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "knobs triage: resuming sweep: 0 settings judged and 0 runs finished before.",
        shown,
        f"knobs triage: error: cannot resume sweep: {changed}; check it, then resume with "
        "`knobs triage --resume sweep --yes`, or give the command after `--`.",
    ]
    assert not (project / "edited").exists()

    done = knobs(project, "triage", "--resume", "sweep", "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[1:3] == [
        shown,
        f"knobs triage: note: {changed}; running it, as --yes asks.",
    ]
    assert (project / "edited").exists()


def test_a_command_typed_again_needs_no_seal(project: Path) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    header_only(sweep, command=["python3", "-c", EDITED])
    done = knobs(project, "triage", "--resume", "sweep", "--", "python3", "-c", EDITED)
    assert done.returncode == 0, done.stderr
    assert (project / "edited").exists()


def test_a_sweep_whose_key_is_not_here_asks_for_yes(project: Path, tmp_path: Path) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    header_only(sweep)
    elsewhere = tmp_path / "another-cache"
    done = knobs_with(project, {"KNOBS_CACHE_DIR": str(elsewhere)}, "triage", "--resume", "sweep")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        "knobs triage: error: cannot resume sweep: the journal's command cannot be verified "
        f"here: the key that sealed it is not in {elsewhere}/triage.key (a sweep started on "
        "another machine or by another user, or a cleared cache); check it, then resume with "
        "`knobs triage --resume sweep --yes`, or give the command after `--`."
    )
    assert runs_logged(project) == 4  # the first sweep's runs only


def test_a_leftover_whose_record_is_not_sealed_is_named_not_stopped(
    project: Path, stopped_at_end: list[subprocess.Popen[bytes]]
) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    header_only(sweep)
    other = session(project)  # a process group of its own, as a run is, but not triage's
    stopped_at_end.append(other)
    start, boot = procfs.start_time(other.pid), procfs.boot_id()
    forged = {"number": 1, "index": 1, "pid": other.pid, "start": start, "group": other.pid}
    with (sweep / "journal.jsonl").open("a") as journal:
        journal.write(json.dumps({"started": {**forged, "boot": boot, "mac": "0" * 64}}) + "\n")
    done = knobs(project, "triage", "--resume", "sweep")
    assert done.returncode == 0, done.stderr
    assert alive(other.pid)
    assert done.stderr.splitlines()[2] == (
        f"knobs triage: note: process group {other.pid} is led by a process the journal says "
        "a run of the sweep started, but its record is not sealed by your key, so it is left "
        f"running; if it is a run of yours, stop it with `kill -- -{other.pid}`."
    )


def test_a_malformed_header_is_exit_2_not_a_traceback(project: Path) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    header_only(sweep, runs="2")
    done = knobs(project, "triage", "--resume", "sweep")
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "knobs triage: error: cannot resume: sweep/journal.jsonl:1: runs: expected an integer, "
        'got "2"' + DAMAGED,
    )


def test_a_verdict_journaled_for_another_setting_is_exit_2(project: Path) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN", "-k", "SYN_RUNDIR")
    path = sweep / "journal.jsonl"
    lines = path.read_text().splitlines()
    (number,) = [n for n, line in enumerate(lines, 1) if '"knobs":["SYN_CLEAN"],"verdict"' in line]
    lines[number - 1] = lines[number - 1].replace('"SYN_CLEAN"', '"SYN_RUNDIR"')
    path.write_text("\n".join(lines) + "\n")
    done = knobs(project, "triage", "--resume", "sweep")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"knobs triage: error: sweep/journal.jsonl:{number}: outcome.knobs: setting 2 is "
        "SYN_RUNDIR in the journal but SYN_CLEAN now; the journal is of another sweep."
    )


@pytest.mark.parametrize(("answer", "status"), [("n", 2), ("y", 0)])
def test_on_a_terminal_an_edited_command_is_asked_about(
    project: Path, answer: str, status: int
) -> None:
    sweep = swept(project, "-k", "SYN_CLEAN")
    header_only(sweep, command=["python3", "-c", EDITED])
    terminal, user = pty.openpty()
    os.write(terminal, f"{answer}\n".encode())  # typed ahead: the terminal keeps it
    try:
        done = subprocess.run(
            [sys.executable, "-m", "knobregistry", "triage", "--resume", "sweep"],
            cwd=project,
            stdin=user,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,
            check=False,
        )
    finally:
        os.close(user)
        os.close(terminal)
    assert done.returncode == status, done.stderr
    assert (project / "edited").exists() == (status == 0)
    asked = (
        "knobs triage: the journal's command was changed since the sweep started (its seal "
        "does not match). Run it? [y/N]: "
    )
    assert asked in done.stderr
    if status:
        assert done.stderr.endswith(
            "knobs triage: error: cannot resume sweep: not confirmed; nothing was run.\n"
        )
