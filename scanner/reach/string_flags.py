"""A local one side of a test sets to a string, compared further on.

``if os.environ.get(N, "0") == "1": mode = "reduce"`` / ``elif ...: mode = "reduce"``, then
``accumulate = mode != "reduce" and not per_slot`` (aiter ops/flydsl/moe_kernels.py:2084-2094):
where the side that sets it runs, the local holds that string; where the other side runs, it
holds what the other side sets or, where that side may leave it, what it held before: the
function's parameter's default. A local the function binds anywhere else (before the test,
or again before its uses) holds more than that, and is not followed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence

from scanner.reach.shapes import locals_set, parameter_defaults
from scanner.source.ast_walk import walk

Function = ast.FunctionDef | ast.AsyncFunctionDef


def strings_set(
    function: Function, statement: ast.If
) -> Iterator[tuple[str, bool, tuple[str, ...], tuple[str, ...]]]:
    """Per local one side's own statements set to a string: its name, whether that side
    runs when the test holds, the string it holds there, and the strings it may hold where
    the other side runs."""
    for side, holds, other in (
        (statement.body, True, statement.orelse),
        (statement.orelse, False, statement.body),
    ):
        for name, value in dict(locals_set(side, _is_string)).items():
            assert isinstance(value, ast.Constant)
            if _stores(side, name) != 1:
                continue  # set again further in that side
            otherwise = _held_otherwise(function, statement, name, other)
            if otherwise is not None and otherwise != (str(value.value),):
                yield name, holds, (str(value.value),), otherwise


def _is_string(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, str)


def _held_otherwise(
    function: Function,
    statement: ast.If,
    name: str,
    other: Sequence[ast.stmt],
) -> tuple[str, ...] | None:
    """The strings ``name`` may hold after ``other`` runs: those it sets (any other value
    there: None), and, unless its own statements always set it, the parameter's default."""
    inside = {id(n) for n in walk(statement)}
    if any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in walk(function)
        if id(n) not in inside
    ):
        return None
    found: list[str] = []
    for node in (n for s in other for n in walk(s)):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            found.append(str(node.value.value))
    if _stores(other, name) != len(found):
        return None  # bound there to something else too
    if name not in dict(locals_set(other, _is_string)):
        before = parameter_defaults(function).get(name)
        if not _is_string(before):
            return None
        assert isinstance(before, ast.Constant)
        found.append(str(before.value))
    return tuple(dict.fromkeys(found))


def _stores(block: Sequence[ast.stmt], name: str) -> int:
    """How many times ``block`` binds ``name``."""
    return sum(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for s in block
        for n in walk(s)
    )


def compared_loads(bindings: Mapping[str, Sequence[ast.expr]], name: str) -> Iterator[ast.Name]:
    """The loads of the local ``name`` compared with constants (``name != "reduce"``) in a
    boolean position of the value another local is bound to."""
    for target, values in bindings.items():
        if target == name:
            continue
        for value in values:
            yield from _compared(value, name)


def _compared(node: ast.expr, name: str) -> Iterator[ast.Name]:
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _compared(value, name)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield from _compared(node.operand, name)
    elif (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Name)
        and node.left.id == name
        and all(isinstance(c, ast.Constant) for c in node.comparators)
    ):
        yield node.left
