"""A module name bound to a package the tree does not hold, imported as optional.

``try: import lightllm_kernel; light_ops = getattr(lightllm_kernel, "ops", lightllm_kernel)``
/ ``except: light_ops = None`` (ModelTC/lightllm fc72ffab lightllm/utils/light_utils.py:4-12):
the package is installed apart from the tree (a compiled extension, here), so a call through
the name (``light_ops.grouped_topk(...)``, fused_moe/topk_select.py:156) runs code no one can
read here: what it runs is not known, neither a kernel nor plain PyTorch.
"""

from __future__ import annotations

import ast

from scanner.reach.libraries import library_of
from scanner.reach.modules import Module
from scanner.source.ast_walk import walk


def optional_package(module: Module, name: str) -> str | None:
    """The package outside the tree the module-level ``name`` of ``module`` holds, where a
    module-level ``try`` imports it and binds ``name`` from it, and a handler binds ``name``
    to None; None otherwise, and for a kernel library (whose calls are kernels)."""
    for statement in module.tree.body:
        if not isinstance(statement, ast.Try):
            continue
        if not any(_binds_none(handler.body, name) for handler in statement.handlers):
            continue
        imported = _imports(statement.body)
        for node in statement.body:
            package = _bound_from(node, name, imported)
            if package is not None and not module.in_tree(package) and not library_of(package):
                return package
    return None


def _imports(body: list[ast.stmt]) -> dict[str, str]:
    """The names the ``import`` statements of ``body`` bind, with what they import."""
    found: dict[str, str] = {}
    for node in body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.partition(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def _bound_from(node: ast.stmt, name: str, imported: dict[str, str]) -> str | None:
    """The import ``node`` binds ``name`` to, or from (``name = getattr(mod, "ops", mod)``)."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return _imports([node]).get(name)
    if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in node.targets
    ):
        used = [n.id for n in walk(node.value) if isinstance(n, ast.Name) and n.id in imported]
        return imported[used[0]] if used else None
    return None


def _binds_none(body: list[ast.stmt], name: str) -> bool:
    return any(
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and node.value.value is None
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        for node in body
    )
