"""A branch that only hands an object a value its class already holds one of.

``if X: self.mlp.set_boundary(fused)`` where ``set_boundary`` only stores its argument
(``self.boundary = boundary``) and its class set ``self.boundary = None`` before (sglang's
srt/models/muse_spark.py:1003-1007, :614, :625-629): when the branch does not run, the
earlier value stays in the object, and the code that reads it takes its own other path.
Something stays in the branch's place; its work is not left undone.
"""

from __future__ import annotations

import ast

from scanner.reach.modules import Module
from scanner.source.ast_walk import walk


def only_sets_kept(module: Module, code: tuple[ast.stmt, ...]) -> bool:
    """Whether every statement of ``code`` calls a method of ``module`` that only stores
    its arguments in attributes its class set before (in another of its methods)."""
    if not code:
        return False
    for statement in code:
        if not (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute)
        ):
            return False
        name = statement.value.func.attr
        setters = [(c, m) for c in _classes(module) for m in _methods(c) if m.name == name]
        if not setters or not all(_sets_kept(c, m) for c, m in setters):
            return False
    return True


def _classes(module: Module) -> list[ast.ClassDef]:
    return [n for n in module.tree.body if isinstance(n, ast.ClassDef)]


def _methods(cls: ast.ClassDef) -> list[ast.FunctionDef]:
    return [n for n in cls.body if isinstance(n, ast.FunctionDef)]


def _sets_kept(cls: ast.ClassDef, method: ast.FunctionDef) -> bool:
    """Whether ``method`` only stores its arguments in ``self`` attributes that another
    method of ``cls`` sets too."""
    arguments = {a.arg for a in method.args.args[1:]}
    body = method.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # its docstring
    stored: set[str] = set()
    for statement in body:
        target = _self_store(statement)
        if target is None:
            return False
        value = statement.value if isinstance(statement, ast.Assign | ast.AnnAssign) else None
        if not (isinstance(value, ast.Name) and value.id in arguments):
            return False
        stored.add(target)
    if not stored:
        return False
    before = {
        target
        for other in _methods(cls)
        if other is not method
        for statement in walk(other)
        if isinstance(statement, ast.stmt) and (target := _self_store(statement)) is not None
    }
    return stored <= before


def _self_store(statement: ast.AST) -> str | None:
    """The attribute ``self.A = ...`` (or ``self.A: T = ...``) stores, or None."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target: ast.expr = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        return target.attr
    return None
