"""Shapes: components of a huge file that are the same code up to the names they read
and the names they bind.

A generated file repeats one statement with other names ten thousand times
(``X0001 = os.environ.get("X_0001", "1") != "0"``). Its components
(``scanner.source.split``) then have one *shape*: the text with each renamed token
replaced by a placeholder numbered by the token's first appearance. A component's
analysis, with the tokens renamed back, is the analysis of every component of the
same shape, when the analysis cannot tell the names apart; ``scanner.run.templates``
decides that and relocates the results. A token is renamed only if every occurrence
of its text in the component is one of these:

- an identifier the component binds at the top level (an assignment target, a
  ``def`` name), as a name or as that ``def``'s name;
- a string literal (``"X_0001"``, an identifier in plain quotes) that names what a
  read reads: the first argument of a call, a subscript, the left side of ``in``.
  Whether each is really a read's name is checked on the analysis.

Anything else (a component with non-ASCII text, a token that also occurs in a
comment, another string, an attribute or a longer name) keeps the text as it is,
so those components simply do not share a shape.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DEF = re.compile(r"(?:async\s+)?def\s+")

Spot = tuple[int, int, int]  # (line, start, end): a name written on one line, columns 0-based


@dataclass(frozen=True, slots=True)
class Tokens:
    """What one top-level statement could rename, at file positions (columns 0-based)."""

    renamable: frozenset[str] = frozenset()  # names it binds by assignment or def
    names: tuple[tuple[int, int, int, str], ...] = ()  # (line, start, end, identifier)
    # (line, start, end, value, read line, read column): the read starts at the column
    # (1-based) the scanner reports for it.
    strings: tuple[tuple[int, int, int, str, int, int], ...] = ()

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.renamable | other.renamable,
            self.names + other.names,
            self.strings + other.strings,
        )


@dataclass(frozen=True, slots=True)
class Shape:
    """A component's text with its renamed tokens replaced, and where they were."""

    text: str  # the text with each renamed token replaced by "\0N\0"
    values: tuple[str, ...]  # placeholder N -> the token's text in this component
    # (line index in the component, start, end, N), in text order
    occurrences: tuple[tuple[int, int, int, int], ...]
    reads: tuple[tuple[int, int, int], ...]  # (line index, column, N): the renamed strings' reads
    lines: tuple[int, ...]  # the file's line of each line of the component


def own_tokens(
    statement: ast.stmt, offset: int, lines: Sequence[str]
) -> tuple[Tokens, tuple[Spot, ...] | None]:
    """What a top-level ``statement`` (parsed from ``lines[offset:]``) binds that a shape
    may rename (its ``def`` name, as a token; its assignment targets), and where each is
    bound (None when a target is not on one line). Its other tokens come from the walk of
    ``scanner.source.split``, reads named by strings from ``read_string``."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        line = statement.lineno + offset
        keyword = _DEF.match(lines[line - 1], statement.col_offset)
        if keyword is None or not lines[line - 1].startswith(statement.name, keyword.end()):
            return Tokens(), ()
        start = keyword.end()
        where = (line, start, start + len(statement.name))
        return Tokens(frozenset({statement.name}), ((*where, statement.name),)), (where,)
    if not isinstance(statement, ast.Assign | ast.AnnAssign):
        return Tokens(), ()
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    names = [t for t in targets if isinstance(t, ast.Name)]
    spots: tuple[Spot, ...] | None = tuple(
        (t.lineno + offset, t.col_offset, t.end_col_offset or 0) for t in names
    )
    if any(t.end_lineno != t.lineno or t.end_col_offset is None for t in names):
        spots = None
    return Tokens(frozenset(t.id for t in names)), spots


def read_string(
    node: ast.AST,
    offset: int,
    lines: Sequence[str],
    strings: list[tuple[int, int, int, str, int, int]],
) -> None:
    """Add to ``strings`` the string that names what ``node`` reads, when it is a call,
    subscript or ``in`` test named by an identifier in plain quotes."""
    read = _read_named(node)
    if read is not None:
        at, named = read
        found = _plain_string(named, offset, lines)
        if found is not None:
            strings.append((*found, at.lineno + offset, at.col_offset + 1))


def _read_named(node: ast.AST) -> tuple[ast.expr, ast.Constant] | None:
    """A call, subscript or ``in`` test, and the string literal that would name what it
    reads."""
    named: ast.expr | None = None
    if isinstance(node, ast.Call) and node.args:
        named = node.args[0]
    elif isinstance(node, ast.Subscript):
        named = node.slice
    elif (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
    ):
        named = node.left
    if isinstance(node, ast.expr) and isinstance(named, ast.Constant):
        return node, named
    return None


def _plain_string(
    node: ast.Constant, offset: int, lines: Sequence[str]
) -> tuple[int, int, int, str] | None:
    """Where a string literal's value is, and the value, when it is an identifier in
    plain quotes."""
    value = node.value
    if node.end_lineno != node.lineno or node.end_col_offset is None:
        return None
    if not isinstance(value, str) or not _NAME.match(value):
        return None
    line = node.lineno + offset
    text = lines[line - 1][node.col_offset : node.end_col_offset]
    if text not in (f'"{value}"', f"'{value}'"):
        return None
    return line, node.col_offset + 1, node.end_col_offset - 1, value


def shape(
    lines: Sequence[str], spans: Sequence[tuple[int, int]], tokens: Sequence[Tokens]
) -> Shape | None:
    """The shape of the component of units at ``spans`` (first and last line) holding
    ``tokens``; None when its text is not ASCII, or a token is not where ast says."""
    numbers = tuple(n for start, end in spans for n in range(start, end + 1))
    text = "".join(lines[n - 1] for n in numbers)
    if not text.isascii():
        return None  # ast's columns are bytes, the scanner's are characters
    renamable = frozenset().union(*(found.renamable for found in tokens))
    strings = [string for found in tokens for string in found.strings]
    where: dict[str, list[tuple[int, int, int]]] = {}
    for found in tokens:
        for line, start, end, name in found.names:
            if name in renamable:
                where.setdefault(name, []).append((line, start, end))
    for line, start, end, value, _, _ in strings:
        where.setdefault(value, []).append((line, start, end))
    for value, held in where.items():
        for line, start, end in held:
            if lines[line - 1][start:end] != value:
                return None  # a position ast gave does not hold the token (never seen)
    renamed = {value: held for value, held in where.items() if text.count(value) == len(held)}
    index = {n: at for at, n in enumerate(numbers)}
    spots = sorted(
        (index[line], start, end, value)
        for value, held in renamed.items()
        for line, start, end in held
    )
    numbered: dict[str, int] = {}
    occurrences = []
    for at, start, end, value in spots:
        occurrences.append((at, start, end, numbered.setdefault(value, len(numbered))))
    reads = tuple(
        (index[line], column, numbered[value])
        for _, _, _, value, line, column in strings
        if value in numbered
    )
    parts = [lines[n - 1] for n in numbers]
    for at, start, end, number in reversed(occurrences):
        part = parts[at]
        parts[at] = f"{part[:start]}\0{number}\0{part[end:]}"
    return Shape(
        text="".join(parts),
        values=tuple(numbered),
        occurrences=tuple(occurrences),
        reads=tuple(sorted(set(reads))),
        lines=numbers,
    )
