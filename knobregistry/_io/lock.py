"""One writer of a file at a time, across processes: `NAME.lock` beside it, held with flock.

A command that reads a registry, changes it and writes it back holds the lock from the
read to the rename, so that two commands finishing together each add their change
instead of the later one writing over the other's.

- The lock file sits beside the file that is written (through a symlink: beside the
  file it points to, as atomic.py writes it), so every path to one file takes one
  lock. It is created when missing and removed by its holder, while still holding
  it, when done, so that no lock file is left in a repository. A process that was
  waiting on the removed file then holds a lock on a file no longer at the path:
  after each flock the holder checks that the path still names the file it locked,
  and starts again if not. Only the holder of the file at the path removes it, so
  two processes never both hold the lock of the file at the path.
- The kernel releases a flock when its holder ends, however it ends (SIGKILL
  included): a lock is never stale.
- Within one thread the lock is re-entrant, so a command may hold it across a use
  case that takes it too; another thread waits for it as another process does.
- Waiting past the timeout is a LockError naming the lock and, where /proc says,
  the process that holds it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shlex
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from knobregistry._io.files import not_regular, reason
from knobregistry._io.procfs import command_line, flock_holders
from knobregistry._text.printable import printable

TIMEOUT_S = 60.0  # a write takes well under a second; a minute is someone else's stuck command
_POLL_S = 0.05
_SHOWN_COMMAND = 120  # characters of the holder's command line shown
_HELD = threading.local()  # `locks`: the lock files this thread holds


class LockError(Exception):
    """The lock could not be had; the message names the file, its lock and why."""


def lock_path(path: Path) -> Path:
    """The lock file of ``path``: `NAME.lock` beside the file ``path`` resolves to."""
    target = Path(os.path.realpath(path))
    return target.with_name(f"{target.name}.lock")


@contextlib.contextmanager
def locked(path: Path, shown: str | None = None, timeout: float = TIMEOUT_S) -> Iterator[None]:
    """Hold the lock of ``path`` within; raises LockError when it cannot be opened, or is
    not had within ``timeout`` seconds. ``shown`` is the path as messages show it."""
    lock = lock_path(path)
    held = _held()
    if lock in held:
        yield
        return
    display = shown if shown is not None else path.as_posix()
    lock_shown = lock.as_posix() if path.is_symlink() else f"{display}.lock"
    descriptor = _acquire(lock, timeout, display, lock_shown)
    held.add(lock)
    try:
        yield
    finally:
        held.discard(lock)
        with contextlib.suppress(OSError):
            if _at_path(descriptor, lock):  # not a file someone made after removing this one
                lock.unlink()  # while still held: see above
        os.close(descriptor)  # releases it


def _held() -> set[Path]:
    locks: set[Path] | None = getattr(_HELD, "locks", None)
    if locks is None:
        locks = _HELD.locks = set()
    return locks


def _open(lock: Path, shown: str, lock_shown: str) -> int:
    """The lock file, opened (created when missing; read-only where only that is allowed:
    flock needs no more)."""
    flags = os.O_NONBLOCK | os.O_CLOEXEC
    try:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | flags, 0o666)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise LockError(_cannot_open(shown, lock_shown, reason(exc))) from exc
        try:
            descriptor = os.open(lock, os.O_RDONLY | flags)
        except OSError:
            raise LockError(_cannot_open(shown, lock_shown, reason(exc))) from exc
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise LockError(_cannot_open(shown, lock_shown, not_regular(mode)))
    return descriptor


def _cannot_open(shown: str, lock_shown: str, problem: str) -> str:
    return f"cannot write {shown}: its lock file {lock_shown} cannot be opened ({problem})."


def _acquire(lock: Path, timeout: float, shown: str, lock_shown: str) -> int:
    """The lock file, locked, once it is the file at its path (see above)."""
    deadline = time.monotonic() + timeout
    while True:
        descriptor = _open(lock, shown, lock_shown)
        try:
            _wait(descriptor, deadline, timeout, shown, lock_shown)
            try:
                if _at_path(descriptor, lock):
                    return descriptor
            except OSError as exc:
                raise LockError(_cannot_open(shown, lock_shown, reason(exc))) from exc
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)  # its holder removed it: lock the file now at the path


def _wait(descriptor: int, deadline: float, timeout: float, shown: str, lock_shown: str) -> None:
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        except OSError as exc:  # ENOLCK: a file system that keeps no locks
            raise LockError(
                f"cannot write {shown}: its lock file {lock_shown} cannot be locked "
                f"({reason(exc)})."
            ) from exc
        left = deadline - time.monotonic()
        if left <= 0:
            raise LockError(
                f"cannot write {shown}: another command has held its lock, {lock_shown}, for "
                f"more than {timeout:g} s: {holder(descriptor)}; wait for it to finish, or "
                "stop it, then try again."
            )
        time.sleep(min(_POLL_S, left))


def _at_path(descriptor: int, lock: Path) -> bool:
    """Whether ``lock`` still names the file open as ``descriptor``; raises OSError when
    that cannot be told."""
    try:
        now = lock.stat()
    except FileNotFoundError:
        return False
    mine = os.fstat(descriptor)
    return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)


def holder(descriptor: int) -> str:
    """`process 4242 (knobs triage ...)`, or what can be said without /proc."""
    status = os.fstat(descriptor)
    pids = [p for p in flock_holders(status.st_dev, status.st_ino) if p > 0]
    if not pids:
        return "its process is not known here"
    words = command_line(pids[0])
    if not words:
        return f"process {pids[0]}"
    text = printable(shlex.join(words))
    if len(text) > _SHOWN_COMMAND:
        text = text[: _SHOWN_COMMAND - 3] + "..."
    return f"process {pids[0]} ({text})"
