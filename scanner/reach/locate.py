"""Nodes of a parsed module found by line, walking only the statements on the way.

A module's tree is large and the reach asks about a few places in it: the test at a line,
the calls of one name, what a node sits in. Statements carry their line ranges, so the
statements around a line are found by descending through the blocks that span it; only
those statements are walked, each once, and the text of the module says which lines
can hold a name at all.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from collections.abc import Iterator, Sequence

Tested = ast.If | ast.While | ast.IfExp
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_WORD_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class Locator:
    """Lookups in one module's tree."""

    def __init__(self, tree: ast.Module, lines: Sequence[str]) -> None:
        self.tree = tree
        self.lines = lines
        self._parents: dict[int, dict[int, ast.AST]] = {}  # per statement: its nodes' parents
        self._own: dict[int, list[ast.AST]] = {}  # per statement: its nodes
        self._outer: dict[int, ast.AST] = {}  # each statement found: the node it sits in
        self._inner: dict[int, list[ast.stmt]] = {}  # each statement: those of its blocks
        # Each block's statements' first and last lines, by the node that holds the block
        # (None where they are not in order: found one by one instead).
        self._ranges: dict[int, tuple[list[int], list[int]] | None] = {}
        self._text: str | None = None  # the lines joined, and where each line starts
        self._starts: list[int] = []

    def statements_at(self, line: int) -> list[ast.stmt]:
        """The statements that span ``line``, outermost first."""
        found: list[ast.stmt] = []
        owner: ast.AST = self.tree
        block: list[ast.stmt] = self.tree.body
        while True:
            inner = self._spanning(owner, block, line)
            if inner is None:
                return found
            self._outer[id(inner)] = owner
            found.append(inner)
            owner = inner
            block = self._blocks(inner)

    def _spanning(self, owner: ast.AST, block: list[ast.stmt], line: int) -> ast.stmt | None:
        """The first statement of ``block`` (held by ``owner``) that spans ``line``: the
        first whose last line is not before it, when the block's statements are in order."""
        key = id(owner)
        if key not in self._ranges:
            self._ranges[key] = _ranges(block)
        ranges = self._ranges[key]
        if ranges is None:
            return next((s for s in block if _spans(s, line)), None)
        first, last = ranges
        at = bisect.bisect_left(last, line)
        return block[at] if at < len(block) and first[at] <= line else None

    def _blocks(self, statement: ast.stmt) -> list[ast.stmt]:
        known = self._inner.get(id(statement))
        if known is None:
            known = self._inner[id(statement)] = [
                s for name in _BLOCKS for s in _block(statement, name)
            ]
        return known

    def innermost(self, line: int) -> ast.stmt | None:
        path = self.statements_at(line)
        return path[-1] if path else None

    def nodes_on(self, line: int) -> Iterator[ast.AST]:
        """Every node of the innermost statement at ``line`` (its nested blocks left out)."""
        statement = self.innermost(line)
        if statement is not None:
            yield statement
            yield from self._expressions(statement)

    def tests_at(self, line: int) -> list[Tested]:
        """The ``if``, ``while`` and ternary nodes whose test spans ``line``."""
        found: list[Tested] = []
        for statement in self.statements_at(line):
            if isinstance(statement, ast.If | ast.While) and _spans(statement.test, line):
                found.append(statement)
        found.extend(n for n in self.nodes_on(line) if isinstance(n, ast.IfExp))
        return found

    def mentioning(self, name: str) -> Iterator[ast.AST]:
        """The nodes of every statement on a line whose text holds the word ``name``, each
        once."""
        seen: set[int] = set()
        for number in self._lines_holding(name):
            statement = self.innermost(number)
            if statement is None or id(statement) in seen:
                continue
            seen.add(id(statement))
            yield statement
            yield from self._expressions(statement)

    def _lines_holding(self, name: str) -> Iterator[int]:
        """The numbers of the lines whose text holds the word ``name``, in order."""
        if _WORD.fullmatch(name) is None:
            word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
            for number, text in enumerate(self.lines, start=1):
                if name in text and word.search(text) is not None:
                    yield number
            return
        if self._text is None:
            self._text = "\n".join(self.lines)
            self._starts = list(itertools.accumulate((len(t) + 1 for t in self.lines), initial=0))
        text, size, last = self._text, len(name), 0
        at = text.find(name)
        while at != -1:
            after = at + size
            if (at == 0 or text[at - 1] not in _WORD_CHARACTERS) and (
                after == len(text) or text[after] not in _WORD_CHARACTERS
            ):
                number = bisect.bisect_right(self._starts, at)
                if number != last:
                    last = number
                    yield number
            at = text.find(name, at + 1)

    def parent(self, node: ast.AST) -> ast.AST | None:
        """The node ``node`` sits in (a node of a statement ``statements_at`` found)."""
        if id(node) in self._outer:
            return self._outer[id(node)]
        line = getattr(node, "lineno", None)
        if line is None:
            return None
        path = self.statements_at(line)
        if id(node) in self._outer:
            return self._outer[id(node)]
        for statement in reversed(path):
            found = self._parents_in(statement).get(id(node))
            if found is not None:
                return found
        return None

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        """The nodes around ``node``, innermost first."""
        current = self.parent(node)
        while current is not None and not isinstance(current, ast.Module):
            yield current
            current = self.parent(current)

    def statements(self) -> Iterator[ast.stmt]:
        """Every statement of the module, those of nested blocks included."""
        pending: list[ast.stmt] = list(reversed(self.tree.body))
        while pending:
            statement = pending.pop()
            yield statement
            pending.extend(reversed([s for name in _BLOCKS for s in _block(statement, name)]))

    def _expressions(self, statement: ast.stmt) -> Iterator[ast.AST]:
        """The nodes of ``statement`` outside its nested blocks."""
        self._parents_in(statement)
        return iter(self._own[id(statement)])

    def _parents_in(self, statement: ast.stmt) -> dict[int, ast.AST]:
        known = self._parents.get(id(statement))
        if known is not None:
            return known
        parents: dict[int, ast.AST] = {}
        own: list[ast.AST] = []
        pending: list[ast.AST] = [statement]
        while pending:
            node = pending.pop()
            for child in _own_children(node):
                parents[id(child)] = node
                own.append(child)
                pending.append(child)
        self._parents[id(statement)] = parents
        self._own[id(statement)] = own
        return parents


def _own_children(node: ast.AST) -> Iterator[ast.AST]:
    """The children of ``node`` that are not statements of a nested block."""
    for name, value in ast.iter_fields(node):
        if name in _BLOCKS and isinstance(node, ast.stmt):
            if name == "handlers":
                for handler in value:
                    if isinstance(handler, ast.ExceptHandler) and handler.type is not None:
                        yield handler.type
            continue
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, ast.AST))


def _block(statement: ast.AST, name: str) -> list[ast.stmt]:
    value = getattr(statement, name, None)
    if not isinstance(value, list):
        return []
    found: list[ast.stmt] = []
    for item in value:
        if isinstance(item, ast.stmt):
            found.append(item)
        elif isinstance(item, ast.ExceptHandler | ast.match_case):
            found.extend(item.body)
    return found


def _ranges(block: list[ast.stmt]) -> tuple[list[int], list[int]] | None:
    """The first and last lines of each statement of ``block`` (its decorators included),
    or None when they do not both rise through the block (a ``try``'s handlers follow its
    ``finally`` in ``_BLOCKS``)."""
    first: list[int] = []
    last: list[int] = []
    for statement in block:
        start: int | None = getattr(statement, "lineno", None)
        if start is None:
            return None
        for decorator in getattr(statement, "decorator_list", ()):
            start = min(start, decorator.lineno)
        end: int = getattr(statement, "end_lineno", None) or start
        if first and (start < first[-1] or end < last[-1]):
            return None
        first.append(start)
        last.append(end)
    return first, last


def _spans(node: ast.AST, line: int) -> bool:
    start: int | None = getattr(node, "lineno", None)
    if start is None:
        return False
    for decorator in getattr(node, "decorator_list", ()):
        start = min(start, decorator.lineno)
    end: int = getattr(node, "end_lineno", None) or start
    return start <= line <= end
