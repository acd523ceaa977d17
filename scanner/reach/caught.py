"""A raise its own ``try`` catches: a jump to the handler, not a check that stops the run.

``try: if os.environ.get(N, "1") == "0": raise ImportError(...); import lib ... except
Exception: HAS_LIB = False`` (unsloth_zoo's gpt_oss.py:532-540) turns the library off the
way a missing install would: the run goes on in the handler. Only a raise that the
handlers of a ``try`` around it, in the same function, catch by name (``Exception``,
``BaseException``, a bare ``except``, or the class raised) and do not raise again counts.
"""

from __future__ import annotations

import ast
from typing import Final

from scanner.reach.sides import Branch

_ANY: Final = frozenset({"Exception", "BaseException"})
_SCOPES: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def caught_here(branch: Branch) -> bool:
    """Whether the raise that ends ``branch`` (a side of an ``if`` or a failed ``assert``)
    is caught by a ``try`` around it in its own function, whose handler goes on."""
    module = branch.module
    statement = module.parent(branch.test)
    if isinstance(statement, ast.Assert):
        raised: str | None = "AssertionError"
    elif isinstance(statement, ast.If):
        body = statement.body if branch.holds else statement.orelse
        if not body or not isinstance(body[-1], ast.Raise):
            return False
        raised = _raised(body[-1])
    else:
        return False
    if raised is None or statement is None:
        return False
    inner: ast.AST = statement
    for around in module.ancestors(statement):
        if isinstance(around, _SCOPES):
            return False
        if isinstance(around, ast.Try) and any(inner is s for s in around.body):
            handler = next((h for h in around.handlers if _catches(h, raised)), None)
            if handler is not None:
                return not (handler.body and isinstance(handler.body[-1], ast.Raise))
        inner = around
    return False


def _raised(node: ast.Raise) -> str | None:
    """The name of the class ``node`` raises (``raise ImportError(...)``), or None (a bare
    ``raise``, or an exception held in a name)."""
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return None


def _catches(handler: ast.ExceptHandler, raised: str) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for kind in kinds:
        name = kind.id if isinstance(kind, ast.Name) else getattr(kind, "attr", None)
        if name in _ANY or name == raised:
            return True
    return False
