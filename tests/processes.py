"""Commands run to completion in a subprocess, their output captured as text: one place
for the ``subprocess.run`` call the tests and their benchmark runs share."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.conftest import REPO


def run_command(
    *command: str | Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in ``cwd`` (with ``env`` as its whole environment, or this one's);
    its exit status is the caller's to check. A run past ``timeout`` seconds raises."""
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def run_python(
    *args: str | Path,
    cwd: Path = REPO,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run this interpreter with ``args`` (a script and its arguments, or ``-m``/``-c``)."""
    return run_command(sys.executable, *args, cwd=cwd, env=env, timeout=timeout)


def benchmark_lines(script: str, *args: str | Path, timeout: float | None = None) -> list[str]:
    """The lines ``benchmarks/SCRIPT`` prints, run from the repository; fails the test,
    with all it printed, when it exits other than 0."""
    done = run_python(f"benchmarks/{script}", *args, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()
