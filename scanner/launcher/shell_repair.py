"""A script's tree, with the bash grammar's known misreadings repaired.

tree-sitter's bash grammar misreads forms that bash (and mvdan/sh, the parser behind
shfmt) read plainly; benchmarks/shell_parse.py measures where the two disagree on real
launchers, and docs/scanning.md lists the forms. Repaired here, before the analysis sees
the tree:

- ``$A/$B/x``, ``node_$N-mbs_$M``: after an expansion and punctuation, the grammar reads
  the next ``$`` as a lone character and ``B/x`` as a word of its own; in an assignment
  (``LOG_DIR=./o/$T/$U/$E``) the rest of the value becomes a command. ``${X:-$_F}``:
  the grammar leaves ``$_F`` inside a word. Each such ``$NAME`` is spelled ``${NAME}``
  (the same expansion to bash) and the script parsed again; a brace that would make
  the grammar fail where it did not is not added.
- ``${A:$K+1}``: the grammar ends the expansion before ``$K``; ``${A:${K}+1}`` it reads.
- ``$1_out``: bash expands ``$1`` (one digit), the grammar a name ``1_out``; spelled
  ``${1}_out``.
- ``"${S#*]}"``, ``"${S%%[*}"``, ``"${V%\\'}"``: in an expansion's pattern the grammar
  fails on a lone ``[`` or ``]``, and reads on past the brace after an escaped ``'``;
  ``$((10#$a))``: a number with its base does not parse; a script that ends in a line
  continuation does not parse, though bash runs it; ``"${A:-gfx942;gfx950}"``: a ``|``,
  ``;``, ``&``, ``<``, ``>``, ``(`` or ``)`` in a default's word does not parse.
  shell_masks rewrites those characters, keeping the script's length; a default is read
  back from the file's own bytes (``original``).
- Inside double quotes the grammar starts an expansion at the blanks (and line
  continuations) before its ``$``: ``start`` gives where the ``$`` is.

The braces added shift the columns after them on their line; ``start``, ``point`` and
``original`` give positions and text as the file has them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from scanner.launcher.shell_masks import (
    continued_at_end,
    in_arithmetic,
    in_patterns,
    in_words,
    literal_at,
)
from scanner.launcher.shell_syntax import parser

if TYPE_CHECKING:
    from tree_sitter import Node, Query, Tree

# Rounds of parsing again: a repaired ``$`` can uncover the next one on the line
# (``a_$B-c_$D``); real launchers need two at most.
MAX_ROUNDS: Final = 4
# What may follow a ``$`` that bash expands: a name, one digit, a special parameter.
_PARAMETER: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9$#?!@*-]")
# An unescaped ``$`` followed by a parameter, inside a word the grammar did not split.
_IN_WORD: Final = re.compile(rb"(?<!\\)(?:\\\\)*\$(?=[A-Za-z_])")
# Where a ``$NAME`` the grammar leaves alone may be (after a character that is not a
# blank, a quote or an operator; ``$1abc``; a ``$`` inside ``${...}``): scripts with none
# are not searched.
_MAY_BE_UNREAD: Final = re.compile(
    rb"[^\s\"'=({$;|&<>`]\$[A-Za-z_0-9]|\$[0-9][A-Za-z0-9_]|\$\{[^}\n]*\$[A-Za-z_]"
)
_EXPANSIONS: Final = frozenset({"expansion", "simple_expansion"})
_BLANKS: Final = b" \t\\\r\n"


@dataclass(frozen=True, slots=True)
class Script:
    """A parsed script: the tree of ``data`` (the file's bytes, repaired), and where the
    braces the repairs added sit (byte offsets in ``data``, sorted)."""

    tree: Tree
    data: bytes
    source: bytes  # the file's own bytes
    added: tuple[int, ...] = ()

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def offset(self, at: int) -> int:
        """The file's byte offset for ``at``, an offset in ``data``."""
        return at - bisect_left(self.added, at) if self.added else at

    def start(self, node: Node) -> int:
        """Where ``node`` starts in ``data``: for an expansion, at its ``$``."""
        at = node.start_byte
        if node.type in _EXPANSIONS:
            data, end = self.data, node.end_byte
            while at < end and data[at] in _BLANKS:
                at += 1
        return at

    def point(self, node: Node) -> tuple[int, int]:
        """0-based row and byte column in the file where ``node`` starts (see ``start``)."""
        row, column = node.start_point
        at = self.start(node)
        if at != node.start_byte:
            skipped = self.data[node.start_byte : at]
            lines = skipped.count(b"\n")
            if lines:
                row, column = row + lines, len(skipped) - skipped.rindex(b"\n") - 1
            else:
                column += at - node.start_byte
        if self.added:
            column -= bisect_left(self.added, at) - bisect_left(self.added, at - column)
        return row, column

    @property
    def repaired(self) -> bool:
        """Whether the grammar saw other bytes than the file's."""
        return self.data is not self.source

    def original(self, start: int, end: int) -> bytes:
        """The file's bytes between two offsets in ``data``."""
        return self.source[self.offset(start) : self.offset(end)]


def parse_script(data: bytes) -> Script:
    """The tree of a script, with the grammar's known misreadings repaired."""
    source = data
    cut = continued_at_end(data)
    if cut is not None:
        data = data[:cut] + b" " + data[cut + 1 :]
    tree = parser().parse(data)
    for _ in range(MAX_ROUNDS):  # a pattern read wrong can hide the next one
        root = tree.root_node
        masked = in_patterns(data, root) or in_arithmetic(data, root) or in_words(data, root)
        if masked is None:
            break
        again = parser().parse(masked)
        if _errors(again.root_node) > _errors(tree.root_node):
            break
        data, tree = masked, again
    added: list[int] = []
    for _ in range(MAX_ROUNDS):
        if not tree.root_node.has_error and not _MAY_BE_UNREAD.search(data):
            break
        names = _unread(tree.root_node, data)
        if not names:
            break
        errors = _errors(tree.root_node)
        tried, tried_added = _braced(data, names, added)
        again = _reparsed(tree, data, tried, [p for d, e in names for p in (d + 1, e)])
        if _errors(again.root_node) > errors:
            # A brace the grammar cannot take (``${A:+${A};}``): one at a time, from the
            # last (offsets before it stay put), each kept only if it adds no error.
            again, tried, tried_added = tree, data, added
            for name in reversed(names):
                data_one, added_one = _braced(tried, [name], tried_added)
                one = parser().parse(data_one)
                if _errors(one.root_node) <= errors:
                    again, tried, tried_added = one, data_one, added_one
            if tried is data:
                break
        tree, data, added = again, tried, tried_added
    return Script(tree, data, source, tuple(added))


def _reparsed(tree: Tree, data: bytes, new: bytes, inserted: list[int]) -> Tree:
    """The tree of ``new``: ``data`` with a byte inserted before each offset of
    ``inserted`` (sorted), parsed again from ``tree`` where it is unchanged."""
    edited = tree.copy()
    for at in reversed(inserted):  # from the last: the offsets before it stay put
        row = data.count(b"\n", 0, at)
        column = at - (data.rfind(b"\n", 0, at) + 1)
        edited.edit(at, at, at + 1, (row, column), (row, column), (row, column + 1))
    return parser().parse(new, edited)


def _errors(root: Node) -> int:
    """How much of a tree the grammar failed on: the bytes its outermost ERROR nodes
    span, and one for each MISSING node."""
    if not root.has_error:
        return 0
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            count += max(1, node.end_byte - node.start_byte)
        elif node.is_missing:
            count += 1
        elif node.has_error:
            stack.extend(node.children)
    return count


@cache
def _query() -> tuple[Query, Query]:
    """What ``_unread`` looks for, found by tree-sitter itself (a walk in Python over every
    node would cost as much as the parse): a ``$`` the grammar left alone, a word in an
    expansion (``${X:-$_F}``), a name that starts with a digit (``$1_out``); and, in a
    tree with errors, an expansion whose brace is missing."""
    from tree_sitter import Query

    language = parser().language
    assert language is not None
    found = Query(
        language,
        """
        (concatenation "$" @dollar)
        (string "$" @dollar)
        (ERROR "$" @dollar)
        (expansion (word) @word)
        (simple_expansion "$" (variable_name) @digit (#match? @digit "^[0-9].")) @positional
        """,
    )
    return found, Query(language, "(expansion) @expansion")


def _unread(root: Node, data: bytes) -> list[tuple[int, int]]:
    """The ``$NAME`` the grammar did not read as expansions: (start of the ``$``, end of
    the name), in document order."""
    from tree_sitter import QueryCursor

    found: list[tuple[int, int]] = []
    simple, expansions = _query()
    captures = QueryCursor(simple).captures(root)
    for node in captures.get("dollar", ()):
        name = _PARAMETER.match(data, node.end_byte)
        if name is not None and name.end() > name.start():
            found.append((node.start_byte, name.end()))
    for node in captures.get("positional", ()):
        # $1_out: bash reads one digit, the grammar a name
        found.append((node.start_byte, node.children[-1].start_byte + 1))
    for node in captures.get("word", ()):
        if literal_at(root, data, node.start_byte):
            continue
        start, end = node.start_byte, node.end_byte
        for hit in _IN_WORD.finditer(data, start, end):
            dollar = hit.end() - 1
            name = _PARAMETER.match(data, dollar + 1, end)
            if name is not None:
                found.append((dollar, name.end()))
    if root.has_error:
        for node in QueryCursor(expansions).captures(root).get("expansion", ()):
            if node.children and node.children[-1].is_missing:
                # ${A:$K+1}: the grammar closes the brace before $K; ${A:${K}+1} it reads
                after = node.next_sibling
                if _touches(node, after) and after is not None:
                    found.append((after.start_byte, after.children[-1].end_byte))
    return sorted(set(found))


def _touches(node: Node, after: Node | None) -> bool:
    """Whether ``after`` is a ``$NAME`` right after ``node``."""
    return (
        after is not None
        and after.type == "simple_expansion"
        and after.start_byte == node.end_byte
        and bool(after.children)
    )


def _braced(data: bytes, names: list[tuple[int, int]], added: list[int]) -> tuple[bytes, list[int]]:
    """``data`` with each ``$NAME`` of ``names`` spelled ``${NAME}``, and the offsets of
    every brace added so far, moved to the new text."""
    points = [p for dollar, end in names for p in (dollar + 1, end)]  # a byte goes in at each
    out = bytearray()
    at = 0
    for point, brace in zip(points, b"{}" * len(names), strict=True):
        out += data[at:point]
        out.append(brace)
        at = point
    out += data[at:]
    moved = [b + bisect_right(points, b) for b in added]
    new = [p + i for i, p in enumerate(points)]
    return bytes(out), sorted(moved + new)
