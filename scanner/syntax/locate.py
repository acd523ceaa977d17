"""Where libcst nodes start: from the ``ast`` anchors, or from PositionProvider.

A node inside an f-string is placed relative to the f-string itself: the
f-string's start comes from its anchor, and the node's offset from generating
the code of the f-string alone (with the indentation of the block around it,
which continuation lines inside brackets repeat), never the whole module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from scanner.source.anchors import AnchorMismatch, Anchors

# Which libcst nodes the anchors of each kind stand for.
KINDS: dict[type[cst.CSTNode], str] = {
    cst.Call: "call",
    cst.Subscript: "subscript",
    cst.Comparison: "compare",
    cst.FunctionDef: "def",
    cst.ClassDef: "class",
}


@dataclass(frozen=True, slots=True)
class InString:
    """The outermost f-string (or implicit concatenation holding one) around a node."""

    root: cst.BaseExpression
    ordinal: int  # among the module's outermost f-strings, in pre-order
    indent: str  # the whole indentation of the block the f-string sits in


def string_root(node: cst.CSTNode) -> bool:
    """Whether ``node`` is what ``ast`` calls a JoinedStr: an f-string, or an implicit
    concatenation with an f-string among its parts."""
    if isinstance(node, cst.FormattedString):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return string_root(node.left) or string_root(node.right)
    return False


def cst_name(node: cst.CSTNode) -> str:
    """The name a libcst node is checked against its ast counterpart by."""
    if isinstance(node, cst.Call):
        return _trailing(node.func)
    if isinstance(node, cst.Subscript):
        return _trailing(node.value)
    if isinstance(node, cst.FunctionDef | cst.ClassDef):
        return node.name.value
    return ""


def _trailing(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""


class AnchorLocator:
    """Positions from the ast anchors of the narrowed text."""

    def __init__(self, anchors: Anchors) -> None:
        self.anchors = anchors
        self._strings: dict[int, tuple[int, Mapping[cst.CSTNode, CodeRange]]] = {}

    def __call__(
        self, node: cst.CSTNode, kind: str, ordinal: int | None, within: InString | None
    ) -> tuple[int, int]:
        if ordinal is not None:
            return self.anchors.locate(kind, ordinal, cst_name(node))
        if within is None:
            raise AnchorMismatch(f"an unanchored {kind}")
        line, column = self.anchors.locate("fstring", within.ordinal, "")
        first, positions = self._positions(within)
        start = positions[node].start
        if start.line == first:  # on the f-string's own first line
            return line, column + start.column - len(within.indent)
        return line + start.line - first, start.column + 1

    def _positions(self, within: InString) -> tuple[int, Mapping[cst.CSTNode, CodeRange]]:
        found = self._strings.get(id(within.root))
        if found is None:
            # Parentheses belong to the libcst node, but not to ast's position.
            root = within.root.with_changes(lpar=(), rpar=())
            statement = cst.SimpleStatementLine([cst.Expr(root)])
            if within.indent:
                block = cst.IndentedBlock([statement], indent=within.indent)
                module = cst.Module([cst.If(cst.Name("True"), block)])
            else:
                module = cst.Module([statement])
            positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
            found = (2 if within.indent else 1, positions)
            self._strings[id(within.root)] = found
        return found


class ProviderLocator:
    """Positions from libcst's PositionProvider (the whole tree's code is generated)."""

    def __init__(self, positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        self.positions = positions

    def __call__(
        self, node: cst.CSTNode, kind: str, ordinal: int | None, within: InString | None
    ) -> tuple[int, int]:
        if isinstance(node, cst.FunctionDef | cst.ClassDef):
            node = node.name  # the line of `def`, below any decorators
        start = self.positions[node].start
        return start.line, start.column + 1


class LineMapped:
    """Positions in a text made of whole lines of a file (a group of its statements,
    ``scanner.source.split``), given as the file's: a line's columns are the same."""

    def __init__(
        self,
        inner: Callable[[cst.CSTNode, str, int | None, InString | None], tuple[int, int]],
        lines: Sequence[int],
    ) -> None:
        self.inner = inner
        self.lines = lines

    def __call__(
        self, node: cst.CSTNode, kind: str, ordinal: int | None, within: InString | None
    ) -> tuple[int, int]:
        line, column = self.inner(node, kind, ordinal, within)
        return self.lines[line - 1], column
