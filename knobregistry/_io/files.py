"""Reading the files people commit: regular files only, never more than a limit.

A registry, doc or baseline path may name a FIFO (an open would wait forever for
a writer), `/dev/zero` (a read would never end) or a folder; each is refused
with a reason instead. The file is opened without blocking and checked with
fstat on the open descriptor, so a path swapped after the check is caught too.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MAX_BYTES = 8 * 1024 * 1024


class FileError(OSError):
    """A file that cannot be read or written; ``reason`` says why, as a sentence fragment.

    An OSError whose ``strerror`` is the reason, so that code catching OSError keeps working.
    """

    def __init__(self, path: Path, reason: str, code: int = 0) -> None:
        super().__init__(code, reason, path.as_posix())
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path.as_posix()}: {self.reason}"

    def message(self, verb: str, shown: str) -> str:
        """`cannot VERB SHOWN: REASON.`, for a command to print."""
        return f"cannot {verb} {shown}: {self.reason}."


@contextmanager
def opened_regular(
    path: Path, *, follow: bool = True, folder: int | None = None
) -> Iterator[tuple[int, os.stat_result]]:
    """The open descriptor of the regular file ``path`` and its fstat, closed on leaving;
    raises FileError for anything else. ``follow=False`` refuses a symbolic link (one a
    program planted, to /dev/zero); ``folder``, an open folder's descriptor, is where a
    relative ``path`` is."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise FileError(path, "it is a symbolic link, not a regular file", exc.errno) from exc
        raise FileError(path, reason(exc), exc.errno or 0) from exc
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise FileError(path, not_regular(status.st_mode))
        yield descriptor, status
    except FileError:
        raise
    except OSError as exc:
        raise FileError(path, reason(exc), exc.errno or 0) from exc
    finally:
        os.close(descriptor)


def read_bytes(
    path: Path, limit: int = MAX_BYTES, *, follow: bool = True, folder: int | None = None
) -> bytes:
    """The bytes of the regular file ``path``; raises FileError past ``limit`` bytes
    (``follow`` and ``folder`` as for opened_regular)."""
    with (
        opened_regular(path, follow=follow, folder=folder) as (descriptor, _),
        os.fdopen(descriptor, "rb", closefd=False) as file,
    ):
        data = file.read(limit + 1)
    if len(data) > limit:
        raise FileError(path, f"it is larger than {limit} bytes")
    return data


def read_range(path: Path, offset: int, length: int) -> bytes:
    """Up to ``length`` bytes of the regular file ``path`` from byte ``offset``; raises
    FileError."""
    with opened_regular(path) as (descriptor, status):
        return os.pread(descriptor, max(0, min(length, status.st_size - offset)), offset)


def leads_inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, its symlinks and `..` resolved, is ``folder`` or under it."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def read_text(path: Path, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``; raises FileError (not UTF-8 included)."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileError(path, f"it is not UTF-8 text (line {line}); save it as UTF-8") from exc


def reason(exc: OSError) -> str:
    """What went wrong, in words: `Permission denied`, `No space left on device`."""
    return exc.strerror or str(exc)


_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


def not_regular(mode: int) -> str:
    """Why a path that is not a regular file is refused: `it is a device, not a regular file`."""
    return f"it is {_KINDS.get(stat.S_IFMT(mode), 'something')}, not a regular file"
