"""A module-level binding in the handler of a failed import, beside the one its ``try`` makes.

``try: from angelslim.compressor._platform import is_torch_compile_supported;
_USE_TORCH_COMPILE = is_torch_compile_supported()`` / ``except ImportError:
_USE_TORCH_COMPILE = False`` (Tencent/AngelSlim 67394ce angelslim/compressor/diffusion/cache/
taylorcache_helper.py:11-16): the handler runs only where an import of the ``try`` failed, an
install without that code, where the variable is not in play; where the run has the code, the
name holds what the ``try`` binds, so its tests decide with the value.
"""

from __future__ import annotations

import ast
from typing import Final

from scanner.reach.modules import Module
from scanner.source.ast_walk import walk

_IMPORT_ERRORS: Final = frozenset({"ImportError", "ModuleNotFoundError"})


def import_fallback(common: ast.AST | None, statement: ast.AST, other: ast.AST) -> bool:
    """Whether ``other`` sits in a handler of ``common`` (the innermost ``try`` around both)
    that catches only a failed import, while ``statement`` sits in the ``try``'s body."""
    if not isinstance(common, ast.Try):
        return False
    if not any(any(n is statement for n in walk(s)) for s in common.body):
        return False
    handler = next((h for h in common.handlers if any(n is other for n in walk(h))), None)
    return handler is not None and _catches_imports(handler.type)


def _catches_imports(caught: ast.expr | None) -> bool:
    """Whether an ``except`` clause names ImportError or ModuleNotFoundError alone (a bare
    ``except`` or ``Exception`` catches failures of any call, not just a missing module)."""
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return bool(names) and all(isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS for n in names)


def own_import_fallback(module: Module, node: ast.AST, handler: ast.ExceptHandler) -> bool:
    """Whether ``handler`` of the ``try`` ``node`` catches only a failed import of modules
    the tree holds (``try: from unsloth_zoo.x import _maybe_compile as f`` / ``except
    ImportError: f = torch.compile``, unsloth_zoo 2026.10.9 rl_replacements.py:452-455): the
    code of a broken install, which a run of the tree does not take."""
    if not isinstance(node, ast.Try) or not _catches_imports(handler.type):
        return False
    imported = [name for statement in node.body for name in _imported(statement)]
    return bool(imported) and all(n is None or module.in_tree(n) for n in imported)


def _imported(statement: ast.stmt) -> list[str | None]:
    """The modules an import statement names (None: a relative import, the tree's own)."""
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    if isinstance(statement, ast.ImportFrom):
        return [None if statement.level else statement.module]
    return []
