"""A value that picks a gather with a backward of its own over an index gather, in compiled code.

``if top_k >= _MIN_K and torch.compiler.is_compiling() and x.requires_grad: return
_RowGather.apply(x, idx, top_k)`` / ``return x[idx // top_k]`` (unslothai unsloth_zoo
temporary_patches/moe_utils.py:2425-2462): the backward of ``x[idx]`` is an
``index_put`` that accumulates, which Inductor lowers to a scatter with atomic adds
(torch 2.13 torch/_inductor/lowering.py:4649 ``index_put_impl_``, ``scatter_mode=
"atomic_add" if accumulate``, :4752), while the ``torch.autograd.Function`` computes its
own backward. A value that runs the Function where unset runs the index gather chooses
the run's deterministic path, as the code shows it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.reach.modules import Module
from scanner.reach.sides import Branch
from scanner.source.ast_walk import walk

_COMPILING = frozenset({"torch.compiler.is_compiling", "torch._dynamo.is_compiling"})
_FUNCTION = "torch.autograd.Function"
SOURCE = "torch/_inductor/lowering.py:4649,4752 (torch 2.13)"


def own_backward(chosen: Branch, left: Branch) -> str | None:
    """The evidence, where ``chosen`` (what a value runs) calls a ``torch.autograd.Function``
    with a ``backward`` of its own on a tensor that ``left`` (the other side of the same
    test, what runs unset) gathers by a tensor index, and the test holds only in compiled
    code; None otherwise."""
    module = chosen.module
    if left.test is not chosen.test or not isinstance(chosen.code, tuple):
        return None
    if not isinstance(left.code, tuple) or not _compiling(module, chosen.test):
        return None
    for call, cls in _applies(module, chosen.code):
        first = call.args[0]
        if not isinstance(first, ast.Name):
            continue
        gather = next(_gathers(left.code, first.id), None)
        if gather is None:
            continue
        return (
            f"{chosen.described()}, which calls {cls.name}.apply ({module.rel}:{call.lineno}), a "
            f"torch.autograd.Function with a backward of its own ({module.rel}:"
            f"{_backward(cls).lineno}), where the other side gathers `{ast.unparse(gather)}` "
            f"({module.rel}:{gather.lineno}), whose backward Inductor scatters with atomic "
            f"adds ({SOURCE}); the test holds only in compiled code"
        )
    return None


def _compiling(module: Module, test: ast.expr) -> bool:
    """Whether ``test`` needs ``torch.compiler.is_compiling()`` to hold (a conjunct)."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return any(isinstance(p, ast.Call) and module.resolve_api(p.func) in _COMPILING for p in parts)


def _applies(module: Module, code: tuple[ast.stmt, ...]) -> Iterator[tuple[ast.Call, ast.ClassDef]]:
    """The ``C.apply(x, ...)`` calls in ``code`` of a class of the module that subclasses
    ``torch.autograd.Function`` and defines ``backward``."""
    for statement in code:
        for node in walk(statement):
            if (
                isinstance(node, ast.Call)
                and node.args
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "apply"
                and isinstance(node.func.value, ast.Name)
            ):
                cls = module.definitions.get(node.func.value.id)
                if isinstance(cls, ast.ClassDef) and _is_function(module, cls):
                    yield node, cls


def _is_function(module: Module, cls: ast.ClassDef) -> bool:
    return any(module.resolve_api(base) == _FUNCTION for base in cls.bases) and any(
        True for _ in _backwards(cls)
    )


def _backwards(cls: ast.ClassDef) -> Iterator[ast.FunctionDef]:
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "backward":
            yield statement


def _backward(cls: ast.ClassDef) -> ast.FunctionDef:
    return next(_backwards(cls))


def _gathers(code: tuple[ast.stmt, ...], name: str) -> Iterator[ast.Subscript]:
    """The loads ``name[index]`` in ``code`` whose index is computed (a tensor index), not a
    constant or a slice."""
    for statement in code:
        for node in walk(statement):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == name
                and isinstance(node.slice, ast.Name | ast.BinOp | ast.Call | ast.Attribute)
            ):
                yield node
