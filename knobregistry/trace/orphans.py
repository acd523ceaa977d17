"""Processes a traced command leaves running: adopted, then waited for.

A command's process tree can outlive it (multiprocessing's resource tracker exits
just after its parent, a launcher may leave a daemon behind), and a process still
running has not written its last records. While a trace runs, knobs is the tree's
child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): orphaned descendants become its
children, so it can wait for each of them, up to a grace period, before it reads the
records. Elsewhere nothing is adopted and only the command itself is waited for.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from knobregistry._io import procfs

_PR_SET_CHILD_SUBREAPER = 36


@contextmanager
def adopting() -> Iterator[bool]:
    """Make this process the subreaper of what it starts inside the block; yields
    whether it could (Linux only)."""
    if not sys.platform.startswith("linux"):
        yield False
        return
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    adopted = prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield adopted
    finally:
        if adopted:
            prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def wait_for_orphans(grace: float) -> int:
    """Reap adopted descendants as they exit, for up to ``grace`` seconds; the number
    still running when the time is up (0 when all have exited)."""
    deadline = time.monotonic() + grace
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid != 0:
            continue
        if time.monotonic() >= deadline:
            return max(1, _children())
        time.sleep(0.02)


def _children() -> int:
    """This process's live children, from /proc (0 where it cannot be read)."""
    me = os.getpid()
    states = (procfs.state(pid) for pid in procfs.pids() or ())
    return sum(
        1 for found in states if found is not None and found.parent == me and not found.zombie
    )
