"""Calls of code the caller hands in, which the reach cannot read.

``module.functional.gemm(A, B, tuned=True)`` with ``module`` a parameter (unsloth_zoo
temporary_patches/moe_utils_sonic.py:353-354: the kernel library the caller loaded) and
``self.q_norm(x)`` with ``self.q_norm`` bound to what ``__init__`` was handed run code the
tree does not name: what they run is not known, as a module loaded by path is not. A
method of a parameter itself (``x.view(...)``, ``out.zero_()``) is the everyday call of a
tensor's method and is not counted: only a function reached *through* an attribute of an
object handed in (a parameter with no annotation) and given operands, and an attribute of
``self`` called as a function whose every value is such an object.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from scanner.reach.modules import Module
from scanner.source.ast_walk import children

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_OWN = frozenset({"self", "cls"})


def handed_calls(
    module: Module, code: Iterable[ast.stmt] | ast.expr, owner: str | None
) -> Iterator[str]:
    """The calls in ``code`` (its own statements, not the functions it calls) of a function
    of an object handed in, each as ``text (path:line)``."""
    pending: list[ast.AST] = [code] if isinstance(code, ast.expr) else list(code)
    while pending:
        node = pending.pop()
        if isinstance(node, _NESTED):
            continue
        pending.extend(children(node))
        if isinstance(node, ast.Call) and _handed(module, node, owner):
            yield f"{ast.unparse(node.func)} ({module.rel}:{node.lineno})"


def _handed(module: Module, call: ast.Call, owner: str | None) -> bool:
    func = call.func
    chain: list[str] = []
    root = func
    while isinstance(root, ast.Attribute):
        chain.append(root.attr)
        root = root.value
    if not isinstance(root, ast.Name) or not chain:
        return False
    if module.resolve(func, owner) is not None and root.id not in _OWN:
        return False  # a module's name (an import, a definition)
    if root.id in _OWN:
        return len(chain) == 1 and owner is not None and _held_attribute(module, owner, func)
    # A computation handed its operands (not a question asked of the object, such as
    # ``batch.forward_mode.is_decode()`` or ``meta.table.contiguous()``).
    return len(chain) >= 2 and bool(call.args) and _parameter(module, root)


def _parameter(module: Module, name: ast.Name) -> bool:
    """Whether ``name`` is a parameter of the function it sits in with no annotation (an
    annotated one is of a type its author names), never rebound there."""
    function = module.function_node_around(name)
    if function is None or name.id in module.local_bindings(function):
        return False
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return any(a.arg == name.id and a.annotation is None for a in every)


def _held_attribute(module: Module, owner: str, func: ast.expr) -> bool:
    """Whether ``self.attr`` (``func``) is no method of the class but an attribute its
    methods bind, each time to a parameter of the method that binds it."""
    assert isinstance(func, ast.Attribute)
    local = owner.removeprefix(f"{module.name}.") if module.name else owner
    if f"{local}.{func.attr}" in module.definitions:
        return False
    values = module.attribute_values(local, func.attr)
    return bool(values) and all(
        isinstance(v, ast.Name) and module.resolve(v, owner) is None and _parameter(module, v)
        for v in values
    )
