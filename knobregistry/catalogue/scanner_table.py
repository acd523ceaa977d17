"""scanner/stack_settings.py, generated from the catalogue: the settings the scanner knows by
name (the entries with a ``scanner:`` block), so that the catalogue's data is their one source
while ``scanner`` reads no YAML and imports nothing from knobregistry.

    python -m knobregistry.catalogue.scanner_table [PATH]     (make catalogue-table)

rewrites the module (or writes it to PATH); a test fails while the module differs from what
the data gives.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from knobregistry._io.atomic import write_atomic
from knobregistry.catalogue.load import CatalogueError, entries, for_name
from knobregistry.catalogue.model import Entry

MODULE = "stack_settings.py"
COMMAND = "make catalogue-table"
_WIDTH = 88  # of a string piece: the module's lines stay within ruff's 100 columns
_HEAD = '''\
"""The catalogue's settings that the scanner knows by name: a knob under one of them has the
role ``stack``. Generated from knobregistry/catalogue/data/*.yaml (the settings with a
``scanner:`` block, in its order) by `{command}`: do not edit."""

from __future__ import annotations

from typing import Final

# (variable, deterministic value, the libraries that read it, what that value gives)
SETTINGS: Final[tuple[tuple[str, str, str, str], ...]] = (
'''
_FLAGS_HEAD = """
# The flags of variables that hold flags (XLA_FLAGS), every catalogued one: (flag, the
# variable, its deterministic value, what the flag controls)
FLAGS: Final[tuple[tuple[str, str, str, str], ...]] = (
"""


def rows() -> tuple[tuple[str, str, str, str], ...]:
    """Each setting the scanner knows: its variable, deterministic value, libraries (`NCCL /
    RCCL`: every catalogued library that reads it) and what the value gives, in its order."""
    marked = [(e.scanner, e) for e in entries() if e.scanner is not None]
    marked.sort(key=lambda pair: pair[0].order)
    for name, count in Counter(e.name for _, e in marked).items():
        if count > 1:
            where = ", ".join(e.library for _, e in marked if e.name == name)
            raise CatalogueError(
                f"two `scanner:` blocks name one variable, {name} ({where}): keep one"
            )
    for order, count in Counter(s.order for s, _ in marked).items():
        if count > 1:
            names = ", ".join(e.name for s, e in marked if s.order == order)
            raise CatalogueError(
                f"two `scanner:` blocks have one order, {order} ({names}): number them apart"
            )
    return tuple((e.name, _value(e), _libraries(e.name), s.gives) for s, e in marked)


def _value(entry: Entry) -> str:
    if not isinstance(entry.deterministic, str):  # the schema refuses it; said all the same
        raise CatalogueError(f"{entry.name}: a `scanner:` block needs a deterministic value")
    return entry.deterministic


def _libraries(name: str) -> str:
    return " / ".join(dict.fromkeys(e.library for e in for_name(name)))


def flag_rows() -> tuple[tuple[str, str, str, str], ...]:
    """Each flag of a variable that holds flags: the flag, the variable, its deterministic
    value and what it controls, in catalogue order."""
    return tuple(
        (flag.flag, entry.name, flag.deterministic, flag.meaning)
        for entry in entries()
        for flag in entry.flags
    )


def text() -> str:
    """The module's text, as `ruff format` leaves it."""
    lines = [_HEAD.format(command=COMMAND)]
    _table(lines, rows())
    lines.append(_FLAGS_HEAD)
    _table(lines, flag_rows())
    return "".join(lines)


def _table(lines: list[str], table: Sequence[tuple[str, ...]]) -> None:
    for row in table:
        lines.append("    (\n")
        for field in row:
            pieces = _pieces(field)
            if len(pieces) == 1:
                lines.append(f"        {pieces[0]},\n")
                continue
            lines.append("        (\n")
            lines.extend(f"            {piece}\n" for piece in pieces)
            lines.append("        ),\n")
        lines.append("    ),\n")
    lines.append(")\n")


def _pieces(value: str) -> list[str]:
    """``value`` as string literals, each of at most ``_WIDTH`` characters where its words
    allow, that concatenate to it."""
    words = value.split(" ")
    pieces: list[str] = []
    current = ""
    for index, word in enumerate(words):
        part = word if index == len(words) - 1 else word + " "
        if current and len(json.dumps(current + part, ensure_ascii=False)) > _WIDTH:
            pieces.append(current)
            current = ""
        current += part
    pieces.append(current)
    return [json.dumps(piece, ensure_ascii=False) for piece in pieces]


def target() -> Path:
    """Where the scanner's module is."""
    import scanner

    return Path(scanner.__file__).with_name(MODULE)


def main(argv: Sequence[str] = ()) -> int:
    """Rewrite the scanner's module (or the file ``argv`` names) from the catalogue, and say
    whether it changed."""
    path = Path(argv[0]) if argv else target()
    new = text()
    if path.is_file() and path.read_text("utf-8") == new:
        print(f"{path}: up to date")
        return 0
    write_atomic(path, new)
    print(f"{path}: rewritten from the catalogue")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
