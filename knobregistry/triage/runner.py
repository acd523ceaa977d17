"""Run the user's command: its own working directory per run, an environment, a timeout.

Each run's working directory is a fresh folder, so relative outputs (`file:` and
`tensors:` paths, logs, checkpoints) never collide between concurrent runs. So
that the command still finds its own files, every relative argument that names an
existing file or folder in the folder triage was started from is passed as an
absolute path (`train.py`, `--config=conf/a.yaml`); arguments that name nothing
there (outputs such as `params.pt`) stay relative to the run's folder. The run
also sees KNOBS_TRIAGE_RUN_DIR (its folder) and KNOBS_TRIAGE_ORIGIN (where triage
was started), for a wrapper script that must `cd` back.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from knobregistry._io import procfs
from knobregistry.triage import owned
from knobregistry.triage.model import Run

RUN_DIR_VARIABLE = "KNOBS_TRIAGE_RUN_DIR"
ORIGIN_VARIABLE = "KNOBS_TRIAGE_ORIGIN"
TERMINATE_GRACE_S = 5.0
_NOT_PATHS = frozenset({"-m", "-c"})  # python -m MODULE, sh -c SCRIPT: never paths
_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]+")


def resolve_arguments(command: Sequence[str], origin: Path) -> tuple[str, ...]:
    """``command`` with every relative argument naming something in ``origin`` made absolute.

    The program itself is left alone unless it contains a '/' (a bare name is looked
    up on PATH); so is the argument after `-m` or `-c`. In `--name=value`, the value
    is resolved.
    """
    out: list[str] = []
    for index, argument in enumerate(command):
        program = index == 0 and "/" not in argument
        if program or (index > 0 and command[index - 1] in _NOT_PATHS):
            out.append(argument)
        elif argument.startswith("-") and "=" in argument:
            name, _, value = argument.partition("=")
            out.append(f"{name}={_absolute(value, origin)}")
        elif argument.startswith("-"):
            out.append(argument)
        else:
            out.append(_absolute(argument, origin))
    return tuple(out)


def streams(folder: Path) -> tuple[Path, Path]:
    """Where a run's stdout and stderr are kept: beside its folder, out of the command's way."""
    return folder.parent / f"{folder.name}.stdout", folder.parent / f"{folder.name}.stderr"


def _absolute(argument: str, origin: Path) -> str:
    if not argument or Path(argument).is_absolute():
        return argument
    try:
        exists = (origin / argument).exists()
    except (OSError, ValueError):  # a name too long, a NUL byte: not a path
        return argument
    return str(origin / argument) if exists else argument


@dataclass
class Runner:
    """Starts runs and keeps track of the live ones, so that all can be stopped at once."""

    typed: tuple[str, ...]  # the command as the user typed it
    origin: Path
    root: Path  # the folder that holds every run's folder, triage's own (owned.py)
    timeout: float | None = None
    command: tuple[str, ...] = field(init=False, default=())  # resolved against ``origin``
    _live: set[subprocess.Popen[bytes]] = field(default_factory=set, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _stopping: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        self.command = resolve_arguments(self.typed, self.origin)

    def folder(self, number: int, label: str, index: int) -> Path:
        """The working directory of run ``index`` of the ``number``-th setting."""
        slug = _UNSAFE.sub("_", label.replace(" + ", "+"))[:80]
        return self.root / f"{number:03d}-{slug}" / f"run-{index}"

    def remove(self, path: Path) -> None:
        """Remove ``path``, a folder or file of runs under ``root``, never through a link."""
        owned.remove(self.root, path)

    def run(
        self,
        folder: Path,
        index: int,
        env: Mapping[str, str],
        on_start: Callable[[int], None] | None = None,
    ) -> Run:
        """Run the command once in ``folder`` (created here) with ``env``; wait for it.
        ``on_start`` is told the pid of the run's process (its group's leader) once it runs."""
        folder.mkdir(parents=True)
        stdout, stderr = streams(folder)
        environment = {**env, RUN_DIR_VARIABLE: str(folder), ORIGIN_VARIABLE: str(self.origin)}
        with stdout.open("wb") as out, stderr.open("wb") as err:
            started = time.perf_counter()
            try:
                process = self._start(folder, environment, out, err)
            except OSError as exc:
                err.write(f"knobs triage: cannot start {self.command[0]}: {exc}\n".encode())
                return Run(index=index, folder=folder, stdout=stdout, stderr=stderr, returncode=127)
            try:
                if on_start is not None:
                    try:
                        on_start(process.pid)
                    except BaseException:
                        _stop(process)  # no run outlives triage, journaled or not
                        raise
                if not _wait_unreaped(process, self.timeout):
                    _stop(process)
                    return Run(
                        index=index,
                        folder=folder,
                        stdout=stdout,
                        stderr=stderr,
                        returncode=None,
                        timed_out=True,
                    )
                wall = time.perf_counter() - started
                _stop(process)  # what the command left running in its group: stopped too
                returncode = process.wait()
            finally:
                with self._lock:
                    self._live.discard(process)
        return Run(
            index=index,
            folder=folder,
            stdout=stdout,
            stderr=stderr,
            returncode=returncode,
            wall_s=wall,
        )

    def _start(
        self, folder: Path, env: dict[str, str], out: IO[bytes], err: IO[bytes]
    ) -> subprocess.Popen[bytes]:
        with self._lock:
            if self._stopping:
                raise OSError("triage is stopping")
            process = subprocess.Popen(
                self.command,
                cwd=folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own process group: a timeout stops its children too
            )
            self._live.add(process)
            return process

    def stop_all(self) -> None:
        """Stop every live run and its children (on a signal, or when triage gives up).

        Every group gets SIGTERM at once, and SIGKILL when it outlives the grace
        period; each run's own thread then stops what is left of its group.
        """
        with self._lock:
            self._stopping = True
            live = list(self._live)
        for process in live:
            _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + TERMINATE_GRACE_S
        while time.monotonic() < deadline and not all(_exited(p) for p in live):
            time.sleep(0.05)
        for process in live:
            _signal_group(process, signal.SIGKILL)


def _wait_unreaped(process: subprocess.Popen[bytes], timeout: float | None) -> bool:
    """Wait until the run's leader exits, leaving it unreaped; False after ``timeout`` s.

    Unreaped, the leader keeps its process group's id taken, so that the group can
    be signalled afterwards without any chance of reaching another program.
    """
    if timeout is None:
        with suppress(ChildProcessError):
            os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
        return True
    deadline = time.monotonic() + timeout
    pause = 0.001
    while not _exited(process):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.05)
    return True


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the run's process group; after a grace period, SIGKILL what is left of it.

    The group's leader is not reaped before the SIGKILL, so the group id cannot have
    been reused by then. Once the leader has exited, the grace period ends as soon
    as no other member of the group is left.
    """
    _signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + TERMINATE_GRACE_S
    while time.monotonic() < deadline and not (_exited(process) and _group_empty(process)):
        time.sleep(0.05)
    _signal_group(process, signal.SIGKILL)
    process.wait()


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    if process.returncode is not None:  # reaped: its group id may belong to another program
        return
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _group_empty(process: subprocess.Popen[bytes]) -> bool:
    """Whether no process but the (exited, unreaped) leader is left running in the run's
    group. A zombie runs nothing: it waits for its parent, or for init where the leader
    was its parent (in a container, init may reap it only seconds later)."""
    pids = procfs.pids()
    if pids is None:  # no /proc: wait out the grace period
        return False
    return not any(
        pid != process.pid and _pgid(pid) == process.pid and procfs.alive(pid) for pid in pids
    )


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether the leader has exited, without reaping it."""
    try:
        found = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped already
        return True
    return found is not None
