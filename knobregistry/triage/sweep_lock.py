"""One sweep, one owner: the lock a sweep holds on its journal for its whole life.

The sweep that creates a journal, or the resume that opens one, takes an exclusive flock
on `journal.jsonl` before it reads or writes anything, and keeps it until it ends (the
descriptor is close-on-exec, so the runs it starts do not hold it). The kernel releases
a flock when its holder ends, however it ends, so the lock of a sweep killed with SIGKILL
is free for its resume; the lock of a sweep still running is not, and a resume of it is
refused before it stops, truncates or runs anything, naming the process that holds it.
Two resumes of one killed sweep: the first takes the lock, the second is refused.

Within one process the lock is shared: the same journal opened again (a sweep that reads
its own journal back) is the same owner.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from pathlib import Path

from knobregistry._io.lock import holder

_HELD: dict[tuple[int, int], int] = {}  # (device, inode) of a journal -> its descriptor


class SweepRunning(Exception):
    """Another process holds the journal's lock: its sweep is running."""


def hold(path: Path, shown: str) -> int | None:
    """Lock the journal ``path`` for this process, or find it locked by this process
    already; its descriptor (None: ``path`` is not there, or is not a regular file, which
    reading it reports). Raises SweepRunning, naming the holder; OSError when it cannot be
    opened or locked."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        return None
    key = (status.st_dev, status.st_ino)
    if key in _HELD:
        os.close(descriptor)
        return _HELD[key]
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        who = holder(descriptor)
        os.close(descriptor)
        raise SweepRunning(
            f"the sweep journaled in {shown} is still running: {who}; wait for it to finish, "
            "or stop it, then resume it (nothing was run or stopped)."
        ) from None
    except OSError:
        os.close(descriptor)
        raise
    _HELD[key] = descriptor
    return descriptor


def release(descriptor: int) -> None:
    """Give up the lock held on ``descriptor`` (a sweep's end releases it anyway)."""
    for key, held in list(_HELD.items()):
        if held == descriptor:
            del _HELD[key]
            with contextlib.suppress(OSError):
                os.close(descriptor)
