"""A carried value returned as one element of a tuple, and where the callers unpack it.

``return os.environ.get("X", "auto").strip().lower(), rows`` then ``mode, rows = f()`` and
``if mode in _OFF:`` in the caller (unslothai unsloth kernels/nvfp4.py:413, :466-467): the
caller's target at the element's position holds the value. A caller that keeps the whole
tuple and returns it on (``return f()``; ``_ENV = f()`` then ``return _ENV``, a result kept
once in a module name, nvfp4.py:421-426) hands the same element to its own callers;
``f()[i]`` is the element itself. A returned local the function binds again is not followed
(``scanner.reach.uses``): it holds other answers too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.reach.modules import Module
from scanner.source.ast_walk import walk


def element_at(node: ast.AST, carrier: ast.expr) -> int | None:
    """The position among the elements of the tuple ``node`` of ``carrier``, or of method
    calls on it (``read.strip().lower()``); None where it is none of them, or where a starred
    element before it leaves its position unknown."""
    if not isinstance(node, ast.Tuple):
        return None
    for at, element in enumerate(node.elts):
        if isinstance(element, ast.Starred):
            return None
        while element is not carrier:
            if not isinstance(element, ast.Call) or not isinstance(element.func, ast.Attribute):
                break
            element = element.func.value
        if element is carrier:
            return at
    return None


def unpacked(module: Module, call: ast.Call, part: int) -> Iterator[ast.Name | ast.Subscript]:
    """Where a caller puts element ``part`` of what ``call`` returns: the local or module
    name it unpacks it into (``a, b = call``), or ``call[part]``."""
    outer = module.parent(call)
    if (
        isinstance(outer, ast.Subscript)
        and outer.value is call
        and isinstance(outer.slice, ast.Constant)
        and outer.slice.value == part
        and isinstance(outer.ctx, ast.Load)
    ):
        yield outer
    elif isinstance(outer, ast.Assign) and outer.value is call and len(outer.targets) == 1:
        target = outer.targets[0]
        if (
            isinstance(target, ast.Tuple | ast.List)
            and part < len(target.elts)
            and not any(isinstance(e, ast.Starred) for e in target.elts[: part + 1])
            and isinstance(named := target.elts[part], ast.Name)
        ):
            yield named


def kept_and_returned(
    module: Module, call: ast.Call
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function that returns what ``call`` gives, whole: ``return call``, or ``name =
    call`` then ``return name`` (a result kept in a module name: ``global _ENV``; ``if
    _ENV is None: _ENV = f()``; ``return _ENV``)."""
    outer = module.parent(call)
    function = module.function_node_around(call)
    if function is None:
        return None
    if isinstance(outer, ast.Return) and outer.value is call:
        return function
    if (
        isinstance(outer, ast.Assign)
        and outer.value is call
        and len(outer.targets) == 1
        and isinstance(target := outer.targets[0], ast.Name)
    ):
        returned = [
            node.value
            for node in walk(function)
            if isinstance(node, ast.Return) and module.function_node_around(node) is function
        ]
        if returned and all(
            isinstance(value, ast.Name) and value.id == target.id for value in returned
        ):
            return function
    return None
