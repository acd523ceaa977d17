"""The Slurm executor: each run is a batch job (`sbatch`), watched with `squeue`, stopped with
`scancel`.

A run's batch script runs the command once, in the run's folder, on the job's first
node, and writes the command's exit status (and its start and end times, for
`--cost wall`) to a file beside the run's stdout and stderr, which Slurm writes
there. The run ends when the job has left the queue, so nothing of it is still
running; its exit status then comes from that file, or, for a job Slurm ended
itself (its time limit, a cancellation), from `scontrol show job`. `--timeout`
counts from the job's start, not from its submission: time in the queue is not
the command's. On a timeout, or when triage stops, the jobs are cancelled and
triage waits until they have left the queue.

Every folder must be visible from the nodes: the runs' folders are made in the
folder triage is started from (see commands/triage.py).
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from knobregistry.triage.model import Run
from knobregistry.triage.runner import ORIGIN_VARIABLE, RUN_DIR_VARIABLE, Runner, streams

JOB_NAME = "knobs-triage"
# Between two `squeue` calls (one call for all the live jobs): a tenth of the age of the
# oldest live job, within these bounds, so that short jobs end fast and long ones cost little.
POLL_MIN_S, POLL_MAX_S = 0.25, 5.0
STATUS_GRACE_S = 10.0  # for a shared filesystem to show the exit status file
CANCEL_WAIT_S = 60.0  # for cancelled jobs to leave the queue
COMMAND_TIMEOUT_S = 120.0  # for one call of sbatch, squeue, scancel or scontrol


def batch_script(command: Iterable[str], status: Path) -> str:
    """The batch script of one run: the command, then its exit status and times to ``status``."""
    partial = status.with_name(status.name + ".partial")
    return (
        "#!/bin/bash\n"
        "# One run of `knobs triage`; triage reads the next line's exit status from the file.\n"
        "started=$EPOCHREALTIME\n"
        f"{shlex.join(command)}\n"
        "status=$?\n"
        "ended=$EPOCHREALTIME\n"
        f'printf \'%s %s %s\\n\' "$status" "$started" "$ended" > {shlex.quote(str(partial))}'
        f" && mv {shlex.quote(str(partial))} {shlex.quote(str(status))}\n"
    )


class _NotSubmitted(Exception):
    """sbatch did not take the run; the message says why."""


@dataclass(frozen=True, slots=True)
class Ended:
    """How a run's job ended: the command's exit status, and its wall time when known."""

    returncode: int
    wall_s: float = 0.0
    note: str = ""  # why there is no exit status from the script, added to its stderr


@dataclass
class SlurmRunner(Runner):
    """A Runner that submits each run as a Slurm batch job and waits for it."""

    slurm_args: tuple[str, ...] = ()
    _jobs: dict[str, float] = field(default_factory=dict, repr=False)  # id -> submitted at
    _queue: dict[str, str] = field(default_factory=dict, repr=False)  # job id -> state
    _asked: set[str] = field(default_factory=set, repr=False)  # the jobs _queue is about
    _polled: float = field(default=float("-inf"), repr=False)
    _poll_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def run(
        self,
        folder: Path,
        index: int,
        env: Mapping[str, str],
        on_start: Callable[[int], None] | None = None,
    ) -> Run:
        """Submit the command as a batch job running in ``folder``; wait until it has ended.
        (A job is no process here: ``on_start`` is not told of it.)"""
        folder.mkdir(parents=True)
        stdout, stderr = streams(folder)
        status = folder.parent / f"{folder.name}.status"
        script = folder.parent / f"{folder.name}.sbatch"
        script.write_text(batch_script(self.command, status), encoding="utf-8")
        environment = {**env, RUN_DIR_VARIABLE: str(folder), ORIGIN_VARIABLE: str(self.origin)}
        options = (f"--output={stdout}", f"--error={stderr}", f"--chdir={folder}")
        try:
            job = self._submit((*options, *self.slurm_args, str(script)), environment)
        except _NotSubmitted as exc:  # a run that could not start, as a local one
            stdout.touch()
            stderr.write_text(f"knobs triage: {exc}\n", encoding="utf-8")
            return Run(index=index, folder=folder, stdout=stdout, stderr=stderr, returncode=127)
        try:
            waited = self._wait(job)
        finally:
            with self._lock:
                self._jobs.pop(job, None)
        if waited == "timed out":
            self._cancel([job])
            return Run(
                index=index,
                folder=folder,
                stdout=stdout,
                stderr=stderr,
                returncode=None,
                timed_out=True,
            )
        if waited == "stopped":  # stop_all() cancels it; the triage is over
            return Run(
                index=index, folder=folder, stdout=stdout, stderr=stderr, returncode=-signal.SIGTERM
            )
        ended = self._ended(job, status)
        if ended.note:
            with stderr.open("a", encoding="utf-8") as err:
                err.write(f"knobs triage: {ended.note}\n")
        return Run(
            index=index,
            folder=folder,
            stdout=stdout,
            stderr=stderr,
            returncode=ended.returncode,
            wall_s=ended.wall_s,
        )

    def _submit(self, args: tuple[str, ...], env: Mapping[str, str]) -> str:
        """Submit the job; its id. Raises _NotSubmitted with the reason."""
        with self._lock:
            if self._stopping:
                raise _NotSubmitted("triage is stopping")
        command = ["sbatch", "--parsable", f"--job-name={JOB_NAME}", "--export=ALL", *args]
        try:
            done = _slurm(command, env)
        except (OSError, subprocess.SubprocessError) as exc:
            raise _NotSubmitted(f"cannot submit the run with sbatch: {exc}") from exc
        if done.returncode != 0:
            said = " ".join(done.stderr.split()) or f"sbatch exited with status {done.returncode}"
            raise _NotSubmitted(f"sbatch refused the run: {said}")
        job = done.stdout.strip().split(";")[0]
        with self._lock:
            self._jobs[job] = time.monotonic()
            stopping = self._stopping
        if stopping:  # stop_all() ran while sbatch did: this job is not in its list
            self._cancel([job])
        return job

    def _wait(self, job: str) -> str:
        """Wait until ``job`` has left the queue: `ended`, `timed out` (it ran past the
        timeout first; it is still running) or `stopped` (triage is stopping)."""
        started: float | None = None
        while True:
            state = self._state(job)
            if self._stopping:
                return "stopped"
            if state is None:
                return "ended"
            if started is None and state != "PENDING":
                started = time.monotonic()
            running = time.monotonic() - started if started is not None else 0.0
            if self.timeout is not None and running > self.timeout:
                return "timed out"
            time.sleep(POLL_MIN_S / 2)

    def _state(self, job: str) -> str | None:
        """The job's state in the queue (None: it has left), from the latest `squeue` of
        every live job, run again once older than the polling interval."""
        with self._poll_lock:
            with self._lock:
                jobs = sorted(self._jobs)
                oldest = min(self._jobs.values(), default=time.monotonic())
            interval = min(POLL_MAX_S, max(POLL_MIN_S, (time.monotonic() - oldest) / 10))
            if time.monotonic() - self._polled >= interval:
                found = _squeue(jobs)
                if found is not None:  # else the controller did not answer: keep the last view
                    self._queue, self._asked = found, set(jobs)
                self._polled = time.monotonic()
            if job not in self._asked:  # submitted since: not known yet
                return "PENDING"
            return self._queue.get(job)

    def _ended(self, job: str, status: Path) -> Ended:
        """How the job ended: from its exit status file, else from what Slurm says."""
        if not status.exists():
            shown = _show_job(job)
            if not shown.startswith("JobState=COMPLETED"):  # the script did not end: no file
                return _ended_by_slurm(job, shown)
            deadline = time.monotonic() + STATUS_GRACE_S  # a shared filesystem may lag
            while not status.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
        try:
            parts = status.read_text(encoding="utf-8").split()
        except OSError:
            return _ended_by_slurm(job, _show_job(job))
        returncode = int(parts[0])
        try:
            wall = float(parts[2].replace(",", ".")) - float(parts[1].replace(",", "."))
        except (IndexError, ValueError):  # bash before 5.0 has no EPOCHREALTIME
            wall = 0.0
        return Ended(returncode, wall)

    def stop_all(self) -> None:
        """Cancel every live job and wait (a while) until they have left the queue."""
        with self._lock:
            self._stopping = True
            jobs = sorted(self._jobs)
        self._cancel(jobs)

    def _cancel(self, jobs: list[str]) -> None:
        if not jobs:
            return
        with suppress(OSError, subprocess.SubprocessError):
            _slurm(["scancel", *jobs])
        deadline = time.monotonic() + CANCEL_WAIT_S
        while time.monotonic() < deadline:
            left = _squeue(jobs)
            if left is not None and not left:
                return
            time.sleep(0.2)


def _slurm(
    command: list[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )


def _squeue(jobs: list[str]) -> dict[str, str] | None:
    """The state of each of ``jobs`` still in the queue; None when squeue did not answer."""
    if not jobs:
        return {}
    try:
        done = _slurm(["squeue", "--noheader", f"--jobs={','.join(jobs)}", "--format=%i %T"])
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        # A single job that has left the queue long ago: "Invalid job id specified".
        return {} if "Invalid job id" in done.stderr else None
    states = dict(line.split(None, 1) for line in done.stdout.splitlines() if line.strip())
    return {job: state.strip() for job, state in states.items()}


_EXIT_CODE = re.compile(r"\bExitCode=(\d+):(\d+)")
_STATE = re.compile(r"\bJobState=(\S+)(?: Reason=(\S+))?")


def _show_job(job: str) -> str:
    """`JobState=STATE Reason=REASON ExitCode=N:S` of the job, as `scontrol` knows it ("":
    it no longer does)."""
    try:
        shown = _slurm(["scontrol", "--oneliner", "show", "job", job]).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    state, code = _STATE.search(shown), _EXIT_CODE.search(shown)
    parts = [state.group(0) if state else "", code.group(0) if code else ""]
    return " ".join(part for part in parts if part)


def _ended_by_slurm(job: str, shown: str) -> Ended:
    """A job that left no exit status: what Slurm still knows of it (``shown``)."""
    state = _STATE.search(shown)
    code = _EXIT_CODE.search(shown)
    what = f"{state.group(1)}" if state else "in a state Slurm no longer knows"
    if state and state.group(2) and state.group(2) != "None":
        what += f" ({state.group(2)})"
    returncode = 1
    if code and int(code.group(2)):
        returncode = -int(code.group(2))
    elif code and int(code.group(1)):
        returncode = int(code.group(1))
    return Ended(returncode, note=f"Slurm job {job} ended {what} without an exit status.")
