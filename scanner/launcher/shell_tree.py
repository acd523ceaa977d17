"""What the shell analysis asks of a script's tree beyond a node's own fields, at a
cost that does not grow with the tree: how deep it nests, a node's parent and line
and column, the names a test reads, a node's text shown in a message.

tree-sitter's ``Node.parent`` walks down from the root again, a step for every level
above the node, and a column counted from the start of its line reads the whole line
up to it: asked for every read, either made a scan grow with the square of its input.
Here the walk down the tree notes the parents it passes (one asked of tree-sitter is
kept), and each line's characters are counted once, from the nearest column asked
before. The tree's depth is bounded first: the walker recurses at every level.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from scanner.launcher.shell_syntax import Expansion, expansion, is_expansion, walk

if TYPE_CHECKING:
    from tree_sitter import Node

    from scanner.launcher.shell_repair import Script

# Levels of the syntax tree (real launchers nest about 20: an ``if`` is one, a test in it
# two or three more). Deeper, the walker's recursion would reach Python's limit.
MAX_DEPTH: Final = 128
# Characters of a condition, bytes of a node, that a scan reports (real launchers' longest
# condition: under 300 characters).
SHOWN: Final = 1000


def deeper_than(root: Node, limit: int) -> bool:
    """Whether a node of the tree lies more than ``limit`` levels below ``root``."""
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > limit:
                return True
            continue
        while not cursor.goto_next_sibling():
            if depth == 0 or not cursor.goto_parent():
                return False
            depth -= 1


def clip(source: str) -> str:
    """A condition's text for what a scan reports, cut after SHOWN characters."""
    return source if len(source) <= SHOWN else source[:SHOWN] + "..."


class Tree:
    """One script's tree: parents, positions, the names read below a test. ``data`` is
    what was parsed (the file, repaired: shell_repair); positions are the file's."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.data = script.data
        self.lines = script.source.split(b"\n")
        self._noted: dict[Node, Node] = {}  # by the walk down, until forget()
        self._asked: dict[Node, Node | None] = {}  # of tree-sitter
        self._names: dict[Node, Counter[str | None]] = {}
        # Per line: the byte columns asked so far (each before an ASCII byte, where the
        # text can be cut without changing how what precedes it decodes), and the
        # characters before each.
        self._columns: dict[int, tuple[list[int], list[int]]] = {}

    def note(self, parent: Node, children: Iterable[Node]) -> None:
        for child in children:
            self._noted[child] = parent

    def forget(self) -> None:
        """Drop what the last walk down noted (its nodes are not asked about again)."""
        self._noted.clear()
        self._names.clear()

    def noted(self, node: Node) -> Node | None:
        """``node``'s parent if the walk down noted it (tree-sitter is not asked)."""
        return self._noted.get(node)

    def parent(self, node: Node) -> Node | None:
        found = self._noted.get(node)
        if found is not None:
            return found
        if node not in self._asked:
            self._asked[node] = node.parent
        return self._asked[node]

    def names_read(self, top: Node) -> Counter[str | None]:
        """How often each variable is expanded at or below ``top``."""
        if top not in self._names:
            self._names[top] = Counter(expansion(n).name for n in walk(top) if is_expansion(n))
        return self._names[top]

    @property
    def original(self) -> Callable[[int, int], bytes] | None:
        """The file's own bytes between two offsets of the parsed text, where a repair
        changed that text (for ``expansion``); None when it is the file's."""
        return self.script.original if self.script.repaired else None

    def written(self, node: Node) -> str:
        """``node``'s text as the file spells it (without the braces a repair added)."""
        if not self.script.repaired:
            return (node.text or b"").decode("utf-8", "replace")
        return self.script.original(node.start_byte, node.end_byte).decode("utf-8", "replace")

    def spelled(self, found: Expansion) -> str | None:
        """What ``found.computed()`` gives, as the file spells it."""
        computed = found.computed()
        if computed is None or not self.script.repaired or found.span is None:
            return computed
        return self.script.original(*found.span).decode("utf-8", "replace")

    def shown(self, node: Node) -> str:
        """``node``'s text for a reason, cut after SHOWN bytes."""
        start, end = node.start_byte, node.end_byte
        cut = self.script.original(start, min(end, start + SHOWN)).decode("utf-8", "replace")
        return cut if end - start <= SHOWN else cut + "..."

    def position(self, node: Node) -> tuple[int, int]:
        """1-based line and character column of ``node`` in the file (tree-sitter counts
        bytes)."""
        row, column = self.script.point(node)
        line = self.lines[row] if row < len(self.lines) else b""
        columns, chars = self._columns.setdefault(row, ([0], [0]))
        at = bisect_right(columns, column) - 1
        count = chars[at] + len(line[columns[at] : column].decode("utf-8", "replace"))
        if columns[at] != column and column < len(line) and line[column] < 0x80:
            columns.insert(at + 1, column)
            chars.insert(at + 1, count)
        return row + 1, count + 1
