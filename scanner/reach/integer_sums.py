"""An atomic accumulation of integers: exact in any order, so no hazard to a bitwise run.

``counts = torch.zeros(E, dtype=torch.int32)`` then ``counts.scatter_add_(0, index,
torch.ones_like(index, dtype=torch.int32))`` (unslothai unsloth_zoo temporary_patches/
moe_routing_triton.py:168-176): the atomics may add in any order, and integer addition is
associative, so every order gives the same counts (the same file's Triton kernel is checked
against it with ``torch.equal``, :253-266). torch requires the source's dtype to be the
tensor's, so either, written as an integer dtype where the call is, says so.
"""

from __future__ import annotations

import ast
from typing import Final

from scanner.reach.modules import Module

_INTEGERS: Final = frozenset(
    f"torch.{name}" for name in ("int8", "int16", "int32", "int64", "uint8", "int", "long", "short")
)
_INTEGER_CASTS: Final = frozenset({"int", "long", "short"})
# The position and keyword of the values each accumulating method adds in.
_SOURCE: Final = {
    "index_add_": (2, "source"),
    "index_reduce_": (2, "source"),
    "scatter_add_": (2, "src"),
    "scatter_reduce_": (2, "src"),
    "index_put_": (1, "values"),
}


def adds_integers(module: Module, call: ast.Call) -> bool:
    """Whether ``call`` (``x.scatter_add_(...)``, ``x.index_add_(...)``, ...) accumulates
    into, or from, a tensor the code makes with an integer dtype."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in _SOURCE:
        return False
    position, keyword = _SOURCE[call.func.attr]
    source = next((k.value for k in call.keywords if k.arg == keyword), None)
    if source is None and len(call.args) > position:
        source = call.args[position]
    if source is not None and _integer(module, source):
        return True
    target = call.func.value
    if not isinstance(target, ast.Name):
        return False
    function = module.function_node_around(call)
    bound = module.local_bindings(function).get(target.id, []) if function is not None else []
    return bool(bound) and all(_integer(module, value) for value in bound)


def _integer(module: Module, value: ast.expr) -> bool:
    """A tensor made with an integer dtype (``torch.zeros(n, dtype=torch.int32)``) or cast
    to one (``x.long()``, ``(ids >= 0).to(torch.int32)``)."""
    if not isinstance(value, ast.Call):
        return False
    method = value.func.attr if isinstance(value.func, ast.Attribute) else None
    if method in _INTEGER_CASTS:
        return not value.args and not value.keywords
    dtype = next((k.value for k in value.keywords if k.arg == "dtype"), None)
    if dtype is None and method == "to" and value.args:
        dtype = value.args[0]
    return dtype is not None and module.resolve(dtype) in _INTEGERS
