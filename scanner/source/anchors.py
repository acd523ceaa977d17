"""Exact positions without libcst's PositionProvider: the ``ast`` side.

PositionProvider generates the code of the whole tree to count lines and
columns, which costs as much as parsing it. CPython's ``ast`` already knows
where every call, subscript, comparison, ``def`` and f-string starts. In a tree
of properly nested intervals, libcst's pre-order is the order of ``(start,
-end)``, so the k-th libcst ``Call`` of a module is the k-th ``ast.Call`` in that
order: the scanner reads its position from there (``scanner.locate`` is the
libcst side). Each match is checked by name, and any doubt (a count or a name
that differs) sends the module back to PositionProvider, so positions are
always those libcst would give. Positions inside f-strings, which Pythons
before 3.12 get wrong, are never taken from ``ast``: only the f-string's own.

This module does not import libcst, so narrowing a file never loads the parser.
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scanner.source.ast_walk import children

Anchor = tuple[int, int, str]  # line, 1-based character column, name for checking
KINDS = ("call", "subscript", "compare", "def", "class", "fstring")


class AnchorMismatch(Exception):
    """The ast and libcst views of a module disagree: use PositionProvider."""


@dataclass(frozen=True, slots=True)
class Anchors:
    """Every call, subscript, comparison, def and f-string on the kept lines, in pre-order."""

    table: dict[str, tuple[Anchor, ...]]
    # How deep the kept code nests (counted as libcst nests it), and the line where.
    deepest: tuple[int, int] = (0, 0)

    def locate(self, kind: str, ordinal: int, name: str) -> tuple[int, int]:
        """The position of the ``ordinal``-th node of ``kind``; AnchorMismatch on any doubt."""
        found = self.table.get(kind, ())
        if ordinal >= len(found) or found[ordinal][2] != name:
            raise AnchorMismatch(f"{kind} #{ordinal}")
        line, column, _ = found[ordinal]
        return line, column

    def check_counts(self, counts: dict[str, int]) -> None:
        """Raise AnchorMismatch unless libcst saw as many nodes of each kind."""
        for kind in KINDS:
            if counts.get(kind, 0) != len(self.table.get(kind, ())):
                raise AnchorMismatch(f"{kind} count")


class LineText:
    """What the anchors ask of each line, worked out once per line: its UTF-8 bytes, and
    where each character starts in them (for a line that is not ASCII). Asked per node,
    each of these walks the whole line, which is quadratic on one long line of many
    nodes (a 500 KB table of literals: over a minute)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._encoded: dict[int, bytes] = {}
        self._starts: dict[int, list[int] | None] = {}  # None: an ASCII line

    def encoded(self, line: int) -> bytes:
        """The UTF-8 bytes of 1-based line ``line``."""
        found = self._encoded.get(line)
        if found is None:
            found = self._encoded[line] = self.lines[line - 1].encode("utf-8", "surrogatepass")
        return found

    def character(self, line: int, byte_offset: int) -> int:
        """The 0-based character column of ``byte_offset`` on ``line`` (``ast`` columns
        count UTF-8 bytes; libcst's count characters)."""
        if line not in self._starts:
            text = self.lines[line - 1]
            self._starts[line] = None if text.isascii() else _byte_starts(text)
        starts = self._starts[line]
        if starts is None:
            return byte_offset
        return bisect.bisect_right(starts, byte_offset) - 1


def _byte_starts(text: str) -> list[int]:
    """The byte offset where each character of ``text`` starts, and its end."""
    starts = [0]
    for character in text:
        starts.append(starts[-1] + len(character.encode("utf-8", "surrogatepass")))
    return starts


def build_anchors(tree: ast.Module, lines: Sequence[str], kept: Callable[[int], bool]) -> Anchors:
    """Anchors for the nodes that start on a kept line, outside f-strings; and how deep
    those lines nest (``a and b and c`` nests as deep as its operands, as in libcst).
    Linear in the length of the lines, however many nodes one line holds."""
    text = LineText(lines)
    found: dict[str, list[tuple[tuple[int, int, int, int], Anchor]]] = {k: [] for k in KINDS}
    deepest = (0, 0)
    # (node, its depth, whether it is inside an f-string)
    stack: list[tuple[ast.AST, int, bool]] = [(tree, 0, False)]
    while stack:
        node, depth, quoted = stack.pop()
        if isinstance(node, ast.stmt) and not kept(node.lineno) and not _decorated_kept(node, kept):
            continue  # a blanked statement: libcst never sees it
        if isinstance(node, ast.Constant | ast.JoinedStr):
            depth += literal_count(node, text) - 1  # "a" "b" "c": libcst nests each in the next
        if depth > deepest[0] and isinstance(node, ast.expr | ast.stmt):
            deepest = (depth, node.lineno)
        kind = None if quoted else _kind(node)
        if kind is not None and isinstance(node, ast.expr | ast.stmt) and kept(node.lineno):
            key = (
                node.lineno,
                node.col_offset,
                -(node.end_lineno or 0),
                -(node.end_col_offset or 0),
            )
            column = text.character(node.lineno, node.col_offset) + 1
            found[kind].append((key, (node.lineno, column, _ast_name(node))))
        # Inner positions of f-strings: see locate.py (walked only for their depth).
        inner = quoted or isinstance(node, ast.JoinedStr)
        step = len(node.values) if isinstance(node, ast.BoolOp) else 1
        stack.extend((child, depth + step, inner) for child in children(node))
    return Anchors(
        {kind: tuple(a for _, a in sorted(items)) for kind, items in found.items()}, deepest
    )


def literal_count(node: ast.Constant | ast.JoinedStr, text: LineText) -> int:
    """How many string literals one constant is written as (``"a" "b"`` is two), counted
    only where there could be more than one: in the constant's own text (every literal
    has two quotes at least), so that the work is that text's length, not its lines'."""
    first, last = node.lineno, node.end_lineno or node.lineno
    start, end = node.col_offset, node.end_col_offset or 0
    if first == last:
        raw = text.encoded(first)[start:end]
    else:
        middle = b"".join(text.encoded(line) + b"\n" for line in range(first + 1, last))
        raw = text.encoded(first)[start:] + b"\n" + middle + text.encoded(last)[:end]
    if raw.count(b'"') + raw.count(b"'") < 4:
        return 1
    segment = raw.decode(errors="replace")
    try:
        tokens = tokenize.generate_tokens(io.StringIO(f"({segment})").readline)
        return max(1, sum(1 for t in tokens if t.type in _STRING_TOKENS))
    except (tokenize.TokenError, SyntaxError):
        return 1


_STRING_TOKENS = frozenset(
    {tokenize.STRING, *(getattr(tokenize, n) for n in ("FSTRING_START",) if hasattr(tokenize, n))}
)


def _decorated_kept(node: ast.stmt, kept: Callable[[int], bool]) -> bool:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return bool(decorators) and kept(decorators[0].lineno)


def _kind(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        return "call"
    if isinstance(node, ast.Subscript):
        return "subscript"
    if isinstance(node, ast.Compare):
        return "compare"
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return "def"
    if isinstance(node, ast.ClassDef):
        return "class"
    if isinstance(node, ast.JoinedStr):
        return "fstring"
    return None


def _ast_name(node: ast.AST) -> str:
    target: ast.AST | None = None
    if isinstance(node, ast.Call):
        target = node.func
    elif isinstance(node, ast.Subscript):
        target = node.value
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return ""
