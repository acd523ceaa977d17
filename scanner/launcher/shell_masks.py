"""Rewrites of a script that keep its length: what the bash grammar fails on, in places
whose text the scan never reports as a value (shell_repair parses the result).

- A line continuation that ends the script (bash joins the line to nothing): a blank.
- ``[``, ``]`` and an escaped ``'`` in an expansion's pattern (``${S#*]}``,
  ``${V%\\'}``): ``?``.
- The ``#`` of a number with its base in arithmetic (``$((10#$a))``): ``+``.
- ``|``, ``;``, ``&``, ``<``, ``>``, ``(`` and ``)`` in the word of a defaulting expansion
  (``"${ARCHS:-gfx942;gfx950}"``, ``${LAYOUT:-Et*10|t*12}``), which bash reads as plain
  characters there: ``_``. The word is a value the scan reports, so it is read back from
  the file's own bytes (``Expansion.written`` through ``Script.original``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from tree_sitter import Node

_PATTERN: Final = re.compile(rb"\$\{[A-Za-z_][A-Za-z0-9_]*(?:##?|%%?)")
_DEFAULTING: Final = re.compile(rb"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=+?]")
_OPERATORS: Final = frozenset(b"|;&<>()")
_BASE: Final = re.compile(rb"[0-9]#\Z")
_ARITHMETIC: Final = frozenset(
    {"arithmetic_expansion", "c_style_for_statement", "compound_statement", "subscript"}
)
_LITERAL: Final = frozenset({"raw_string", "ansi_c_string", "comment", "heredoc_body"})


def continued_at_end(data: bytes) -> int | None:
    """Where the backslash of a line continuation that ends the script is (a backslash
    not itself escaped, then at most a newline); None when there is none."""
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    run = len(data[:end]) - len(data[:end].rstrip(b"\\"))
    return end - 1 if run % 2 == 1 else None


def in_patterns(data: bytes, root: Node) -> bytes | None:
    """``data`` with each ``[``, ``]`` and escaped ``'`` of an expansion's pattern
    (``${S#*]}``, ``${V%\\'}``) read as ``?``; None when there is none. A pattern is
    never a value the scan reports, and the grammar fails on those characters there."""
    if b"${" not in data:
        return None
    return _masked(data, root, _PATTERN, _pattern_spots, b"?")


def in_words(data: bytes, root: Node) -> bytes | None:
    """``data`` with each ``|``, ``;``, ``&``, ``<``, ``>``, ``(`` and ``)`` of a defaulting
    expansion's word (``${X:-a;b}``: plain characters to bash, where the grammar fails)
    read as ``.``, which cannot lengthen a name before it (``${A-$X;}`` reads ``$X``); None
    when there is none."""
    if not root.has_error or b"${" not in data:
        return None
    return _masked(data, root, _DEFAULTING, _word_spots, b".")


def _masked(
    data: bytes,
    root: Node,
    start: re.Pattern[bytes],
    spots_after: Callable[[bytes, int], list[int]],
    mask: bytes,
) -> bytes | None:
    """``data`` with ``mask`` at every spot ``spots_after`` finds after a match of
    ``start`` where something expands; None when there is none."""
    out: bytearray | None = None
    for hit in start.finditer(data):
        spots = spots_after(data, hit.end())
        if spots and not literal_at(root, data, hit.start()):
            out = out if out is not None else bytearray(data)
            for spot in spots:
                out[spot] = mask[0]
    return bytes(out) if out is not None else None


def _word_spots(data: bytes, at: int) -> list[int]:
    """Where the word starting at ``at`` holds an operator character outside a nested
    expansion or substitution, up to its closing brace; empty when it holds a quote, a
    backquote or a line break, or does not close."""
    spots: list[int] = []
    nested = 0  # open ``${`` and ``$(`` inside the word
    size = len(data)
    while at < size:
        char = data[at]
        if char == 0x5C:  # a backslash escapes the next byte
            at += 2
            continue
        if char in b"'\"`\n":
            return []
        if char == 0x24 and data[at + 1 : at + 2] in (b"{", b"("):  # ${ or $(
            nested += 1
            at += 2
            continue
        if nested and char in b"({":
            nested += 1
        elif nested and char in b"})":
            nested -= 1
        elif not nested and char == 0x7D:  # }
            return spots
        elif not nested and char in _OPERATORS:
            spots.append(at)
        at += 1
    return []


def in_arithmetic(data: bytes, root: Node) -> bytes | None:
    """``data`` with the ``#`` of each base-prefixed number in arithmetic (``10#$a``),
    where the grammar fails, read as ``+`` (arithmetic is never a value the scan
    reports); None when there is none."""
    if not root.has_error or b"#" not in data:
        return None
    spots: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            end = node.end_byte
            if _BASE.search(data, node.start_byte, end) and _in_arithmetic(node):
                spots.append(end - 1)
        elif node.has_error:
            stack.extend(node.children)
    if not spots:
        return None
    out = bytearray(data)
    for spot in spots:
        out[spot] = ord("+")
    return bytes(out)


def _in_arithmetic(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in _ARITHMETIC:
            return True
        parent = parent.parent
    return False


def _pattern_spots(data: bytes, at: int) -> list[int]:
    """Where a pattern starting at ``at`` holds ``[``, ``]`` or an escaped ``'``, up to
    its closing brace; empty when it holds an expansion, a quote or a line break, or
    does not close."""
    spots: list[int] = []
    size = len(data)
    while at < size:
        char = data[at]
        if char == 0x7D:  # }
            return spots
        if char == 0x5C:  # a backslash escapes the next byte
            if at + 1 < size and data[at + 1] == 0x27:  # '
                spots.append(at + 1)
            at += 2
            continue
        if char in b"$`'\"\n":
            return []
        if char in b"[]":
            spots.append(at)
        at += 1
    return []


def literal_at(root: Node, data: bytes, at: int) -> bool:
    """Whether the byte at ``at`` sits where nothing expands (single quotes, a comment,
    a here-document)."""
    node: Node | None = root.descendant_for_byte_range(at, at + 1)
    while node is not None:
        kind = node.type
        # A quote after a backslash opens nothing: such a string is the grammar's misreading.
        start = node.start_byte
        if kind in _LITERAL and not (kind == "raw_string" and data[start - 1 : start] == b"\\"):
            return True
        node = node.parent
    return False
