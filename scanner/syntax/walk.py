"""A read-only walk over libcst trees.

``CSTVisitor`` rebuilds every node it passes and visits every whitespace and
punctuation token; the scanner only reads, and never needs those. Walking the
dataclass fields directly, and skipping the formatting nodes, is several times
faster on the same tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields

import libcst as cst

# Node types that hold only formatting: never an expression or a statement.
_FORMATTING = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.Comment,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
    cst.ImportStar,
)
_FORMATTING_FIELDS = frozenset(
    {"lpar", "rpar", "leading_lines", "lines_after_decorators", "header", "footer", "comma"}
)


# Types whose dataclass fields are not declared in source order.
_SOURCE_ORDER: dict[type[cst.CSTNode], tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.Arg: ("keyword", "value"),
}


def _child_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of ``kind`` that may hold children, in source order (worked out once per
    type: a dict lookup is cheaper than ``functools.cache``'s call on every node)."""
    found = _FIELDS.get(kind)
    if found is None:
        declared = [f.name for f in fields(kind)]
        ordered = _SOURCE_ORDER.get(kind, ())
        names = [n for n in ordered if n in declared] + [n for n in declared if n not in ordered]
        found = tuple(
            n for n in names if not n.startswith("whitespace") and n not in _FORMATTING_FIELDS
        )
        _FIELDS[kind] = found
    return found


_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}
_WANTED: dict[type[object], bool] = {}


def _wanted(kind: type[object]) -> bool:
    """Whether values of this type are nodes to walk (abc checks are slow: ask once per type)."""
    found = _WANTED.get(kind)
    if found is None:
        found = issubclass(kind, cst.CSTNode) and not issubclass(kind, _FORMATTING)
        _WANTED[kind] = found
    return found


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The non-formatting children of ``node``, in source order (a list: every walk of every
    tree goes through here, and a generator costs a third more)."""
    found: list[cst.CSTNode] = []
    wanted = _WANTED
    for name in _FIELDS.get(type(node)) or _child_fields(type(node)):
        value = getattr(node, name)
        kind: type[object] = type(value)
        for item in value if kind is tuple or kind is list else (value,):
            take = wanted.get(type(item))
            if take is None:
                take = _wanted(type(item))
            if take:
                found.append(item)
    return found


def walk(
    root: cst.CSTNode,
    enter: Callable[[cst.CSTNode], bool],
    leave: Callable[[cst.CSTNode], None] | None = None,
) -> None:
    """Depth-first, in source order: ``enter`` each node (False: skip its children), then
    ``leave`` it once its children are done."""
    stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            if leave is not None:
                leave(node)
            continue
        descend = enter(node)
        stack.append((node, True))
        if descend:
            stack.extend((child, False) for child in reversed(children(node)))


def nodes(root: cst.CSTNode, prune: tuple[type[cst.CSTNode], ...] = ()) -> Iterator[cst.CSTNode]:
    """Every non-formatting node under ``root`` (itself included), not entering ``prune``
    types below the root."""
    pruned = frozenset(_concrete(prune))
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node is not root and type(node) in pruned:
            continue
        stack.extend(reversed(children(node)))


def _concrete(kinds: tuple[type[cst.CSTNode], ...]) -> list[type[cst.CSTNode]]:
    """``kinds`` and their subclasses, so membership can be tested by exact type."""
    found: list[type[cst.CSTNode]] = []
    pending = list(kinds)
    while pending:
        kind = pending.pop()
        found.append(kind)
        pending.extend(kind.__subclasses__())
    return found
