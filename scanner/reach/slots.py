"""A carried value kept under a constant key of a module-level dict, and read back there.

``_STATE = {"enabled": False}`` at module level; a function stores a value decided by the
variable under a key (``_STATE["enabled"] = triton is not None and mode not in ("0",
"off")``), and other functions of the module test ``_STATE["enabled"]`` (unslothai
unsloth_zoo temporary_patches/moe_fused_swiglu.py:54, :63, :92). The dict is a module
global, so the slot holds the value wherever the module reads it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.reach.modules import Module
from scanner.source.ast_walk import walk


def slot(module: Module, target: ast.expr) -> tuple[str, str] | None:
    """``(dict, key)`` for a target ``D["key"]`` where ``D`` is a module-level name that
    the function around the target does not bind itself; None for any other target."""
    if not isinstance(target, ast.Subscript) or not isinstance(target.value, ast.Name):
        return None
    key = target.slice
    if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
        return None
    holder = target.value.id
    if holder not in module.globals:
        return None
    function = module.function_node_around(target)
    if function is not None and holder in module.local_bindings(function):
        return None  # a local dict of the same name
    return holder, key.value


def slot_loads(module: Module, holder: str, key: str, stored: ast.AST) -> Iterator[ast.Subscript]:
    """The reads of ``holder[key]`` in the module, outside the statement ``stored`` that
    fills the slot."""
    inside = {id(n) for n in walk(stored)}
    for node in module.loads_named(holder):
        outer = module.parent(node)
        if (
            isinstance(outer, ast.Subscript)
            and outer.value is node
            and isinstance(outer.ctx, ast.Load)
            and isinstance(outer.slice, ast.Constant)
            and outer.slice.value == key
            and id(outer) not in inside
            and slot(module, outer) is not None
        ):
            yield outer


def filled_with(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> Iterator[ast.Name]:
    """The loads of the local ``name`` in the value a slot of a module-level dict is
    filled with in ``function`` (``_STATE["enabled"] = ok and name not in OFF``)."""
    for stores in module.keyed_stores(function).values():
        for statement in stores:
            if slot(module, statement.targets[0]) is None:
                continue
            for node in walk(statement.value):
                if (
                    isinstance(node, ast.Name)
                    and node.id == name
                    and isinstance(node.ctx, ast.Load)
                ):
                    yield node


def splatted_key(module: Module, holder: ast.expr, key: ast.expr | None, at: ast.AST) -> str | None:
    """The constant key under which a local dict holds a value, where the function hands that
    dict on as a call's keywords (``kwargs["enable_x"] = v`` or ``kwargs = {"enable_x": v}``,
    then ``Args(**kwargs)``: fastvideo api/compat.py:242, :253, :311); None otherwise. The
    value lands in the field of that name."""
    if not (
        isinstance(holder, ast.Name)
        and isinstance(key, ast.Constant)
        and isinstance(key.value, str)
        and (function := module.function_node_around(at)) is not None
    ):
        return None
    for node in walk(function):
        if isinstance(node, ast.Call) and any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id == holder.id
            for k in node.keywords
        ):
            return key.value
    return None
