"""Commands run to completion in a subprocess, their output captured as text: one place
for the ``subprocess.run`` call the tests and their benchmark runs share."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from tests.conftest import REPO


def hangup_default() -> None:
    """For ``preexec_fn``: SIGHUP at its default action in the child, as a command started
    from a terminal has it. Under `nohup` the tests inherit SIGHUP ignored, and so would
    the child, which knobs rightly leaves ignored: a test that sends it SIGHUP to see what
    it does starts it with this."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def hangup_ignored() -> None:
    """For ``preexec_fn``: SIGHUP ignored in the child, as `nohup` starts it."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def run_command(
    *command: str | Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    preexec: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in ``cwd`` (with ``env`` as its whole environment, or this one's);
    its exit status is the caller's to check. A run past ``timeout`` seconds raises.
    ``preexec`` runs in the child before the command (``hangup_default``)."""
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        preexec_fn=preexec,
    )


def run_python(
    *args: str | Path,
    cwd: Path = REPO,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    preexec: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run this interpreter with ``args`` (a script and its arguments, or ``-m``/``-c``)."""
    return run_command(sys.executable, *args, cwd=cwd, env=env, timeout=timeout, preexec=preexec)


def benchmark_lines(script: str, *args: str | Path, timeout: float | None = None) -> list[str]:
    """The lines ``benchmarks/SCRIPT`` prints, run from the repository; fails the test,
    with all it printed, when it exits other than 0."""
    done = run_python(f"benchmarks/{script}", *args, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()
