"""Run a command with both levels installed, wait for it, and collect what it read.

The command inherits standard input, output and error, so its output passes
through. Three variables carry the trace to every process of the tree:
``PYTHONPATH`` (a folder holding the hook as ``sitecustomize.py``), ``LD_PRELOAD``
(the interposer) and ``KNOBS_TRACE_DIR`` (where each process writes its records);
``KNOBS_TRACE_SECRETS`` carries the project's own secret patterns. A child started
with an environment of its own that drops them is not traced.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from knobregistry.trace.model import Trace
from knobregistry.trace.native import NativeLevel
from knobregistry.trace.orphans import adopting, wait_for_orphans
from knobregistry.trace.records import collect

HOOK = Path(__file__).with_name("python_hook.py")
DIR_VARIABLE = "KNOBS_TRACE_DIR"
SECRETS_VARIABLE = "KNOBS_TRACE_SECRETS"
NOT_FOUND = 127  # the statuses a shell gives a command it cannot find or run
NOT_RUNNABLE = 126
GRACE = 5.0  # seconds to wait for processes the command left running


class CommandError(Exception):
    """The command could not be started; ``status`` is what a shell would exit with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def traced_environment(
    environ: Mapping[str, str],
    hook_folder: Path,
    records: Path,
    native: NativeLevel,
    secrets: Sequence[str] = (),
) -> dict[str, str]:
    """``environ`` with the hook first on PYTHONPATH and the interposer first in
    LD_PRELOAD; ``secrets``: more secret patterns (name parts) for both to withhold."""
    env = dict(environ)
    env["PYTHONPATH"] = _prepend(str(hook_folder), env.get("PYTHONPATH"), os.pathsep)
    if native.library is not None:
        env["LD_PRELOAD"] = _prepend(str(native.library), env.get("LD_PRELOAD"), " ")
    env[DIR_VARIABLE] = str(records)
    env[SECRETS_VARIABLE] = ",".join(secrets)
    return env


def _prepend(first: str, rest: str | None, separator: str) -> str:
    return first if not rest else f"{first}{separator}{rest}"


def run_traced(
    command: Sequence[str],
    native: NativeLevel,
    environ: Mapping[str, str],
    grace: float = GRACE,
    secrets: Sequence[str] = (),
) -> Trace:
    """Run ``command`` traced, then wait up to ``grace`` seconds for the processes it
    left running (a resource tracker, a daemon) to finish their records; raises
    CommandError when it cannot start. ``secrets``: more secret patterns."""
    # The program can write in the folder: what it leaves there must not stop the clean-up.
    with tempfile.TemporaryDirectory(prefix="knobs-trace-", ignore_cleanup_errors=True) as root:
        hook_folder = Path(root, "python")
        records = Path(root, "records")
        hook_folder.mkdir()
        records.mkdir()
        shutil.copyfile(HOOK, hook_folder / "sitecustomize.py")
        env = traced_environment(environ, hook_folder, records, native, secrets)
        with adopting() as adopted:
            status = _run(command, env)
            still_running = wait_for_orphans(grace) if adopted else 0
        injected = {"PYTHONPATH": (str(hook_folder), os.pathsep)}
        if native.library is not None:
            injected["LD_PRELOAD"] = (str(native.library), " ")
        found = collect(records, injected)
    return Trace(
        command=tuple(command),
        exit_status=status,
        reads=found.reads,
        copies=found.copies,
        c_level=native.skipped,
        processes=found.processes,
        still_running=still_running,
        unreadable=found.unreadable,
        unrecorded=found.unrecorded,
    )


def _run(command: Sequence[str], env: dict[str, str]) -> int:
    """The command's exit status, 128 + N when signal N ended it."""
    try:
        process = subprocess.Popen(list(command), env=env)
    except FileNotFoundError as exc:
        raise CommandError(f"{command[0]}: command not found", NOT_FOUND) from exc
    except PermissionError as exc:
        raise CommandError(f"{command[0]}: permission denied", NOT_RUNNABLE) from exc
    except OSError as exc:
        raise CommandError(f"{command[0]}: {exc.strerror or exc}", NOT_RUNNABLE) from exc
    with _forwarding(process):
        code = process.wait()
    return 128 - code if code < 0 else code


@contextmanager
def _forwarding(process: subprocess.Popen[bytes]) -> Iterator[None]:
    """While the command runs: Ctrl-C reaches it through the terminal and is ignored
    here, so its status and its trace still come back; SIGTERM and SIGHUP sent to
    knobs are passed on to it."""

    def forward(signum: int, frame: FrameType | None) -> None:
        if process.poll() is None:
            process.send_signal(signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handled: dict[signal.Signals, signal._HANDLER] = {
        signal.SIGINT: signal.SIG_IGN,
        signal.SIGTERM: forward,
        signal.SIGHUP: forward,
    }
    previous = {signum: signal.signal(signum, handler) for signum, handler in handled.items()}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
