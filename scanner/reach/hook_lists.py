"""A hook added to a list that the tree calls while it captures a CUDA graph.

``runner.capture_tail_hooks.append(make_hook(sampler))``, where a function of the tree runs
``for hook in self.model_runner.capture_tail_hooks: hook(...)`` and is handed to the call
that captures the graph (``self.backend.capture_one(key, run_once)``): what the hook runs is
captured into that graph, and replayed with it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from scanner.reach.modules import Module, Tree
from scanner.reach.shapes import own_returns
from scanner.source.ast_walk import walk

Function = ast.FunctionDef | ast.AsyncFunctionDef


def added_hook(
    module: Module, call: ast.Call, function: Callable[[str], Function | None], owner: str | None
) -> str | None:
    """The list attribute ``call`` adds a hook to (``X.hooks.append(make_hook(...))``, the
    hook a closure a function of the tree makes and returns), or None."""
    func = call.func
    if (
        not isinstance(func, ast.Attribute)
        or func.attr != "append"
        or not isinstance(func.value, ast.Attribute)
        or len(call.args) != 1
        or call.keywords
        or not isinstance(call.args[0], ast.Call)
    ):
        return None
    dotted = module.resolve(call.args[0].func, owner)
    factory = function(dotted) if dotted is not None else None
    if factory is None or not _returns_closure(factory):
        return None
    return func.value.attr


def _returns_closure(factory: Function) -> bool:
    """Whether every return of ``factory`` gives back a function it defines itself."""
    nested = {s.name for s in walk(factory) if isinstance(s, Function) and s is not factory}
    returns = own_returns(factory)
    return bool(returns) and all(
        isinstance(r.value, ast.Name) and r.value.id in nested for r in returns
    )


def hook_captures(tree: Tree, attr: str) -> list[tuple[Module, Function, ast.Call]]:
    """Where the tree calls each hook of a list ``attr`` holds (``for h in x.attr: h(...)``)
    in a function it defines inside another, which hands that function by name to a call:
    the module, the function and that call (the capture it may run under)."""
    found: list[tuple[Module, Function, ast.Call]] = []
    needle = attr.encode()
    for rel in sorted(tree.rels()):
        data = tree.data(rel)
        if data is None or needle not in data:
            continue
        module = tree.module(rel)
        if module is None:
            continue
        for loop in walk(module.tree):
            if not _calls_each(loop, attr):
                continue
            inner = module.function_node_around(loop)
            outer = module.function_node_around(inner) if inner is not None else None
            if inner is None or outer is None:
                continue
            for call in walk(outer):
                if isinstance(call, ast.Call) and any(
                    isinstance(a, ast.Name) and a.id == inner.name
                    for a in (*call.args, *(k.value for k in call.keywords))
                ):
                    found.append((module, inner, call))
    return found


def _calls_each(node: ast.AST, attr: str) -> bool:
    """``for h in <...>.attr:`` whose body calls ``h``."""
    if (
        not isinstance(node, ast.For)
        or not isinstance(node.iter, ast.Attribute)
        or node.iter.attr != attr
        or not isinstance(node.target, ast.Name)
    ):
        return False
    name = node.target.id
    return any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
        for statement in node.body
        for c in walk(statement)
    )
