"""A JAX primitive of the tree lowered to a native custom call: ``C.outer_primitive.bind(...)``
(or ``C.bind(...)``) where class ``C`` lowers through ``jax.ffi.ffi_lowering`` (JAX's FFI:
the primitive runs the native kernel registered under that name, not XLA's own ops)."""

from __future__ import annotations

import ast

from scanner.reach.modules import Module

FFI_LOWERINGS = frozenset({"jax.ffi.ffi_lowering", "jax.extend.ffi.ffi_lowering"})


def ffi_primitive(module: Module, call: ast.Call) -> str | None:
    """``C.outer_primitive.bind`` as written, where ``call`` binds a primitive of a class of
    ``module`` whose methods lower it through JAX's FFI; else None."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "bind":
        return None
    owner = func.value.value if isinstance(func.value, ast.Attribute) else func.value
    if not isinstance(owner, ast.Name):
        return None
    node = module.definitions.get(owner.id)
    if not isinstance(node, ast.ClassDef) or not _lowers_by_ffi(module, node):
        return None
    return ast.unparse(func)


def _lowers_by_ffi(module: Module, node: ast.ClassDef) -> bool:
    for inner in module.walked(node):
        if isinstance(inner, ast.Call) and module.resolve(inner.func) in FFI_LOWERINGS:
            return True
    return False
