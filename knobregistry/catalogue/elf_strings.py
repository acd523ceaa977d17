"""The environment-variable names a shared object contains: the `strings` algorithm, run over
the ELF file's read-only data.

A C or C++ library's `getenv("NCCL_ALGO")` keeps the name as a string constant, which the
linker places in `.rodata` (string tails merged, messages that mention a name beside it). So
the names are the runs of `[A-Z0-9_]` in that section that start with one of the library's
prefixes at a word boundary. Only the section header table is parsed (ELF32 and ELF64, either
byte order): `.rodata` of libtorch_cpu.so is 18 MB of its 434, so reading it alone is what
keeps `knobs catalogue --installed` fast. A file whose section headers are stripped, or that
names no `.rodata`, is searched whole; a file that is not ELF holds no names.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

_MAGIC = b"\x7fELF"
_SHN_XINDEX = 0xFFFF
_NAME_CHAR = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class NotElf(Exception):
    """The file is not an ELF object (a script, a Mach-O or PE file, a truncated file)."""


def read_only_data(path: Path) -> bytes:
    """The `.rodata` section of the ELF file at ``path``; the whole file where its section
    headers do not name one. Raises NotElf for a file that is not ELF, OSError as open does."""
    with path.open("rb") as handle:
        ident = handle.read(64)
        if len(ident) < 52 or not ident.startswith(_MAGIC) or ident[4] not in (1, 2):
            raise NotElf(path.name)
        wide = ident[4] == 2
        order = "<" if ident[5] == 1 else ">"
        if wide:
            shoff = struct.unpack_from(order + "Q", ident, 0x28)[0]
            entsize, count, names = struct.unpack_from(order + "HHH", ident, 0x3A)
        else:
            shoff = struct.unpack_from(order + "I", ident, 0x20)[0]
            entsize, count, names = struct.unpack_from(order + "HHH", ident, 0x2E)
        section = _Sections(handle, order, wide, shoff, entsize)
        if shoff and entsize:
            if count == 0 or names == _SHN_XINDEX:  # extended numbering: kept in section 0
                _, _, _, size, link = section.header(0)
                count = count or size
                names = link if names == _SHN_XINDEX else names
            found = section.find(b".rodata", count, names)
            if found is not None:
                return found
        handle.seek(0)
        return handle.read()


class _Sections:
    """The section header table of an open ELF file."""

    def __init__(self, handle: BinaryIO, order: str, wide: bool, offset: int, entsize: int) -> None:
        self.handle = handle
        self.layout = order + ("IIQQQQIIQQ" if wide else "IIIIIIIIII")
        self.offset = offset
        self.entsize = entsize

    def header(self, index: int) -> tuple[int, int, int, int, int]:
        """Section ``index``: its name offset, type, file offset, size and link."""
        self.handle.seek(self.offset + index * self.entsize)
        raw = self.handle.read(self.entsize)
        if len(raw) < struct.calcsize(self.layout):
            raise NotElf("truncated section header table")
        name, kind, _flags, _addr, offset, size, link, *_ = struct.unpack_from(self.layout, raw)
        return name, kind, offset, size, link

    def read(self, offset: int, size: int) -> bytes:
        self.handle.seek(offset)
        return self.handle.read(size)

    def find(self, wanted: bytes, count: int, names_index: int) -> bytes | None:
        """The contents of the section named ``wanted``; None when there is none."""
        if names_index >= count:
            return None
        _, _, offset, size, _ = self.header(names_index)
        table = self.read(offset, size)
        for index in range(count):
            name, kind, offset, size, _ = self.header(index)
            end = table.find(b"\0", name)
            if table[name : end if end >= 0 else None] == wanted and kind != 8:  # 8: NOBITS
                return self.read(offset, size)
        return None


def variable_names(data: bytes, prefixes: Iterable[str]) -> frozenset[str]:
    """The runs of `[A-Z0-9_]` in ``data`` that start with one of ``prefixes`` at a word
    boundary and end with a letter or digit (`NCCL_ALGO`; not `XNCCL_ALGO`, not `NCCL_`)."""
    found: set[str] = set()
    for prefix in prefixes:
        pattern = re.compile(re.escape(prefix.encode("ascii")) + rb"[A-Z0-9_]*[A-Z0-9]")
        for match in pattern.finditer(data):
            start, end = match.span()
            if start and data[start - 1] in _NAME_CHAR:
                continue
            if end < len(data) and data[end] in _NAME_CHAR:
                continue  # `NCCL_ALGOx`, `NCCL_Algo`: a longer identifier, not this name
            found.add(match.group().decode("ascii"))
    return frozenset(found)
