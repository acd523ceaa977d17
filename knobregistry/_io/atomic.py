"""Files people commit are never left half-written: write beside, then rename over.

- Through a symlink, the file it points to is written (a registry shared by a link
  stays shared), in that file's folder; unless the caller says not to follow one
  (`follow=False`, for a file knobs makes beside another): then a link at the path is
  replaced by the file, and what it points to is never touched.
- Only a regular file is replaced: `/dev/full`, a FIFO or a folder is refused.
- The data goes to a `.NAME.knobs-PID-START.XXXXXXXX.tmp` file beside the target (the
  process writing it, and when that process started: /proc/PID/stat's field 22, 0
  where unknown), is synced, then renamed over it. Ctrl-C, SIGTERM and SIGHUP during
  the write remove the temporary file; the signal is then delivered again as it would
  have been. SIGKILL cannot be observed: one during the write leaves the temporary
  file (never the target half-written). The next write of the same file removes it,
  and only such leftovers of knobs: a file named so, whose process is gone (a pid the
  system gave to another process since has another start time), that is a regular
  file (a link is neither followed nor removed) of one link, owned by this user.
  Nothing else beside the target is touched; knobs reads no such file.

Every failure is a FileError that names the path and the reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from knobregistry._io import procfs
from knobregistry._io.files import FileError, not_regular, reason

_OBSERVED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def write_atomic(path: Path, text: str, *, follow: bool = True) -> None:
    """Write ``text`` (UTF-8, `\\n` kept) to ``path`` atomically; raises FileError.
    ``follow=False``: a symbolic link at ``path`` is replaced, never written through."""
    if follow:
        target = Path(os.path.realpath(path))
    else:
        target = Path(os.path.realpath(path.absolute().parent)) / path.name
    data = text.encode("utf-8")
    if not target.parent.is_dir():
        raise FileError(path, "its folder does not exist", errno.ENOENT)
    with _signals_raise():
        try:
            mode = _mode(target, follow)
            _write(target, data, mode)
        except FileError:
            raise
        except OSError as exc:
            raise FileError(path, reason(exc), exc.errno or 0) from exc


def _mode(target: Path, follow: bool) -> int:
    """The permissions to give the new file: the old file's, else what the umask allows."""
    try:
        status = target.stat() if follow else target.lstat()
    except FileNotFoundError:
        return _default_mode()
    if stat.S_ISLNK(status.st_mode):
        return _default_mode()  # replaced, not followed
    if not stat.S_ISREG(status.st_mode):
        raise FileError(target, not_regular(status.st_mode))
    return status.st_mode & 0o777


def temporary_prefix(target: Path) -> str:
    """The start of the name of this process's temporary files for ``target``."""
    return f".{target.name}.knobs-{os.getpid()}-{procfs.start_time(os.getpid()) or 0}."


def _write(target: Path, data: bytes, mode: int) -> None:
    _remove_strays(target)
    temporary: Path | None = None
    try:
        with _blocked():  # a signal between creating the file and naming it here waits
            descriptor, name = tempfile.mkstemp(
                prefix=temporary_prefix(target), suffix=".tmp", dir=target.parent
            )
            temporary = Path(name)
        with os.fdopen(descriptor, "wb") as file:
            _fill(file.fileno(), data, mode)
        temporary.replace(target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                temporary.unlink()
        raise


def _remove_strays(target: Path) -> None:
    """Remove the temporary files that writes of ``target`` by knobs left (killed by
    SIGKILL mid-write), and nothing else (see the module's docstring)."""
    shape = re.compile(re.escape(f".{target.name}.knobs-") + r"(\d+)-(\d+)\.\w+\.tmp\Z")
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            found = shape.match(entry.name)
            if found is None or not _process_ended(int(found.group(1)), int(found.group(2))):
                continue
            with contextlib.suppress(OSError):
                status = entry.stat(follow_symlinks=False)
                if (
                    stat.S_ISREG(status.st_mode)
                    and status.st_nlink == 1
                    and status.st_uid == os.geteuid()
                ):
                    Path(entry.path).unlink()


def _process_ended(pid: int, start: int) -> bool:
    """Whether the process that started at ``start`` with ``pid`` has ended (a start of 0:
    unknown, so only whether ``pid`` runs)."""
    if not _running(pid):
        return True
    return start != 0 and procfs.start_time(pid) not in (None, start)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: running
    return True


@contextlib.contextmanager
def _blocked() -> Iterator[None]:
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = {signal.SIGINT, *_OBSERVED}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, mask)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _fill(descriptor: int, data: bytes, mode: int) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
    os.fchmod(descriptor, mode)
    os.fsync(descriptor)


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


class _Signalled(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise(signum: int, frame: FrameType | None) -> None:
    raise _Signalled(signum)


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """Within: SIGTERM and SIGHUP raise, so that cleanup runs; then they are delivered again.

    Only the main thread can set handlers; an ignored signal stays ignored (nohup).
    """
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in _OBSERVED:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, _raise)
    try:
        yield
    except _Signalled as exc:
        _restore(previous)
        previous = {}
        signal.raise_signal(exc.signum)  # the default action ends the process here
        raise SystemExit(128 + exc.signum) from None  # a handler that returned
    finally:
        _restore(previous)


def _restore(previous: dict[int, Any]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
