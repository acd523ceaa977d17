"""Outputs read as streams: digests tell equal from different, then the first difference.

Memory stays bounded whatever a run writes (a gigabyte of lines included): a file
is read in chunks of CHUNK bytes, and a line is kept only as its first HEAD bytes
and a SHA-256 digest of the whole line. Lines end at `\\n`, `\\r\\n` or `\\r` (a
progress bar's `\\r` starts a line, as in a terminal); the break is not part of
the line.
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

CHUNK = 1 << 20
HEAD = 64 * 1024  # what is kept of a line: shown, and what a regex is matched against


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    """A line: its 1-based number, its first HEAD bytes, and what identifies all of it."""

    number: int
    head: bytes
    digest: bytes  # `=` and the line itself, or `#` and the SHA-256 of a line past HEAD
    cut: bool = False  # longer than HEAD

    @property
    def text(self) -> str:
        return self.head.decode("utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class Summary:
    """A whole file at a glance: its size, digest, and whether it is UTF-8 text."""

    size: int
    digest: bytes
    utf8: bool


def summarize(path: Path) -> Summary:
    """Read ``path`` once, in chunks."""
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")()
    size, utf8 = 0, True
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            size += len(chunk)
            digest.update(chunk)
            if utf8:
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError:
                    utf8 = False
    if utf8:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            utf8 = False
    return Summary(size, digest.digest(), utf8)


class _Builder:
    """One line as it is read: kept whole up to HEAD bytes, hashed past that."""

    __slots__ = ("hash", "head", "size")

    def __init__(self) -> None:
        self.head = b""
        self.hash: Any = None  # hashlib's sha256, once the line is longer than HEAD
        self.size = 0

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.hash is None:
            if len(self.head) + len(piece) <= HEAD:
                self.head += piece
                return
            self.hash = hashlib.sha256(self.head)
            self.head += piece[: HEAD - len(self.head)]
        self.hash.update(piece)

    def line(self, number: int) -> Line:
        if self.hash is None:
            return Line(number=number, head=self.head, digest=b"=" + self.head)
        return Line(number=number, head=self.head, digest=b"#" + self.hash.digest(), cut=True)


def lines(path: Path, start: int = 0, number: int = 0) -> Iterator[Line]:
    """The lines of ``path``, one at a time, from the line that starts at byte ``start``
    (``number`` lines come before it)."""
    line = _Builder()  # the line read so far, when a chunk ends inside it
    after_cr = False  # the last chunk ended at `\r`: a `\n` starting the next one is its pair
    with path.open("rb") as file:
        file.seek(start)
        while chunk := file.read(CHUNK):
            if after_cr and chunk.startswith(b"\n"):
                chunk = chunk[1:]
            pieces = chunk.splitlines(keepends=True)  # at \n, \r\n and \r only, for bytes
            after_cr = chunk.endswith(b"\r")
            for piece in pieces:
                if not piece.endswith((b"\n", b"\r")):
                    line.add(piece)  # the chunk ends inside this line
                    continue
                content = piece[:-2] if piece.endswith(b"\r\n") else piece[:-1]
                number += 1
                if not line.size and len(content) <= HEAD:
                    yield Line(number=number, head=content, digest=b"=" + content)
                else:
                    line.add(content)
                    yield line.line(number)
                    line = _Builder()
    if line.size:
        yield line.line(number + 1)


def matching(path: Path, test: Callable[[str], bool]) -> Iterator[Line]:
    """The lines of ``path`` whose text (its first HEAD bytes) passes ``test``."""
    return (line for line in lines(path) if test(line.text))


def first_different_line(
    first: Iterator[Line], other: Iterator[Line]
) -> tuple[Line | None, Line | None] | None:
    """The first pair of lines that differ (None on the side that has run out), or None."""
    for a, b in zip_longest(first, other):
        if a is None or b is None or a.digest != b.digest:
            return a, b
    return None


def first_different_byte(first: Path, other: Path) -> int | None:
    """The offset of the first byte that differs (or where one file ends), or None."""
    offset = 0
    with first.open("rb") as a, other.open("rb") as b:
        while True:
            chunk_a, chunk_b = a.read(CHUNK), b.read(CHUNK)
            if chunk_a != chunk_b:
                same = next(
                    (i for i, (x, y) in enumerate(zip(chunk_a, chunk_b, strict=False)) if x != y),
                    min(len(chunk_a), len(chunk_b)),
                )
                return offset + same
            if not chunk_a:
                return None
            offset += len(chunk_a)


def last_line_start(path: Path, end: int) -> tuple[int, int]:
    """The offset just after the last `\\n` before byte ``end`` (0 if none), and the number
    of lines before it: where to resume comparing once the first ``end`` bytes are equal."""
    start, offset = 0, 0
    with path.open("rb") as file:
        while offset < end and (chunk := file.read(min(CHUNK, end - offset))):
            found = chunk.rfind(b"\n")
            if found >= 0:
                start = offset + found + 1
            offset += len(chunk)
    return start, _count_until(path, start)


def _breaks(data: bytes, previous: bytes) -> int:
    count = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
    if previous == b"\r" and data.startswith(b"\n"):
        count -= 1  # the `\r\n` straddles two chunks
    return count


def _count_until(path: Path, end: int) -> int:
    """The number of line breaks in the first ``end`` bytes of ``path``."""
    count, offset, previous = 0, 0, b""
    with path.open("rb") as file:
        while offset < end and (chunk := file.read(min(CHUNK, end - offset))):
            count += _breaks(chunk, previous)
            previous = chunk[-1:]
            offset += len(chunk)
    return count
