"""A name a module binds only through ``from pkg.mod import *``: what it refers to.

``from ..kernels import *`` binds every public name of ``pkg.kernels`` in the importing
module without naming any of them, so a call or a reference there (``apply_lora_qkv``,
handed to ``layer.self_attn.apply_qkv = apply_lora_qkv``) resolves to nothing by the
module's own imports; the tree's star-import table (``Tree.starred``) says where it comes
from. A name the enclosing functions bind themselves (a parameter, an assignment, a loop
target) is theirs, never the star-imported one.
"""

from __future__ import annotations

import ast
import weakref
from typing import Final

from scanner.reach.modules import Module, Tree

# The names each function binds, kept while its tree lives.
_BOUND: Final[weakref.WeakKeyDictionary[ast.AST, frozenset[str]]] = weakref.WeakKeyDictionary()


def star_imported(tree: Tree, module: Module, node: ast.expr) -> str | None:
    """The dotted name the bare name ``node`` refers to through one of ``module``'s star
    imports, or None (not a bare name, no star import, or a local of its function)."""
    if not isinstance(node, ast.Name) or not module.stars or node.id.startswith("_"):
        return None
    function = module.function_node_around(node)
    while function is not None:
        if node.id in _bound_in(module, function):
            return None
        function = module.function_node_around(function)
    return tree.starred(module, node.id)


def _bound_in(module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names ``function`` binds itself: its parameters, every name it stores, defines
    or imports."""
    known = _BOUND.get(function)
    if known is None:
        known = _BOUND[function] = frozenset(_binds(module, function))
    return known


def _binds(module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = function.args
    bound = {
        a.arg
        for a in (
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            *(a for a in (arguments.vararg, arguments.kwarg) if a is not None),
        )
    }
    for node in module.walked(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif node is not function and isinstance(node, _DEFINES):
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound


_DEFINES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
