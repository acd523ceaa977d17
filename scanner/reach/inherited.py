"""A classmethod called through a subclass of the class that defines it
(``class NormFwd(BasePrimitive)``, then ``NormFwd.enabled()`` for ``BasePrimitive.enabled``)."""

from __future__ import annotations

import ast

from scanner.reach.modules import Module


def inherited_call(module: Module, call: ast.Call, method: str) -> bool:
    """Whether ``call`` is ``Sub.m()`` for the method ``method`` (``pkg.mod.Base.m``), where
    ``Sub`` is a class of ``module`` whose bases name ``Base`` and which does not define
    ``m`` itself."""
    if not isinstance(call.func, ast.Attribute) or not isinstance(call.func.value, ast.Name):
        return False
    base, _, short = method.rpartition(".")
    if call.func.attr != short:
        return False
    node = module.definitions.get(call.func.value.id)
    if not isinstance(node, ast.ClassDef):
        return False
    if any(
        isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == short for s in node.body
    ):
        return False
    return any(module.resolve(b) == base for b in node.bases)
