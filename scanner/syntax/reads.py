"""The shapes of reads in the syntax tree: where the name and the default stand."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from scanner.accessors import ENVIRON, ENVIRON_VIEWS

Qualify = Callable[[cst.BaseExpression], str | None]


def read_arguments(node: cst.Call) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None]:
    """The name and default expressions of a read call (``key``/``default`` keywords too)."""
    name: cst.BaseExpression | None = None
    default: cst.BaseExpression | None = None
    positional = 0
    for arg in node.args:
        if arg.star:
            continue
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "key" or (keyword is None and positional == 0):
            name = arg.value
        elif keyword == "default" or (keyword is None and positional == 1):
            default = arg.value
        if keyword is None:
            positional += 1
    return name, default


def subscript_name(node: cst.Subscript) -> cst.BaseExpression | None:
    """The key expression of ``x[key]`` (None for slices and tuples of keys)."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return node.slice[0].slice.value


def is_environ(node: cst.BaseExpression, qualify: Qualify) -> bool:
    """Whether ``node`` is ``os.environ`` (any spelling) or one of its name views
    (``os.environ.keys()``), as the right side of a membership test."""
    if (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ENVIRON_VIEWS
    ):
        node = node.func.value
    return qualify(node) == ENVIRON


def contains_environ(node: cst.Comparison, qualify: Qualify) -> bool:
    """Whether ``node`` is ``N in os.environ`` or ``N not in os.environ`` (or ``.keys()``)."""
    if len(node.comparisons) != 1:
        return False
    target = node.comparisons[0]
    return isinstance(target.operator, cst.In | cst.NotIn) and is_environ(
        target.comparator, qualify
    )
