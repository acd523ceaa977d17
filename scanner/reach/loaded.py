"""Functions of a module compiled from C++/CUDA sources at run time and loaded.

A helper that returns such a module (``return load_jit(...)``, down to ``return
tvm_ffi.load_module(path)``) hands its caller kernels: ``_jit_module(...).run(x)`` calls one.
Loading alone computes nothing (an availability probe loads and returns a bool), so the mark
is where a function of the returned module is called.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final

from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.source.ast_walk import children

# The APIs that compile C++/CUDA sources (or take them from a build cache) and load the
# result as a module: https://tvm.apache.org/ffi/reference/python/generated/
# tvm_ffi.load_module.html, .../cpp/generated/tvm_ffi.cpp.load.html and
# tvm_ffi.cpp.load_inline.html; https://pytorch.org/docs/stable/cpp_extension.html.
LOADERS: Final = frozenset(
    {
        "tvm_ffi.load_module",
        "tvm_ffi.module.load_module",
        "tvm_ffi.cpp.load",
        "tvm_ffi.cpp.load_inline",
        "torch.utils.cpp_extension.load",
        "torch.utils.cpp_extension.load_inline",
    }
)
MAX_HELPERS = 4  # helpers returning another helper's module, followed

# The function a dotted name defines in the tree: its module, its name there (``C.m``) and
# its node, or None.
Locate = Callable[[str], "tuple[Module, str, ast.FunctionDef | ast.AsyncFunctionDef] | None"]


def loader_returned(locate: Locate, dotted: str, depth: int = 0) -> tuple[str, str, int] | None:
    """The loader API, with its file and line, whose module the function ``dotted`` returns
    (itself or through helpers that return another's); None when it returns no such module."""
    located = locate(dotted)
    if located is None:
        return None
    module, local, node = located
    owner = module.qualified(local.rsplit(".", 1)[0]) if "." in local else None
    for call in _returned_calls(node):
        name = module.resolve_api(call.func)
        if name in LOADERS:
            return name, module.rel, call.lineno
        inner = module.resolve(call.func, owner)
        if inner is not None and inner != dotted and depth < MAX_HELPERS:
            found = loader_returned(locate, inner, depth + 1)
            if found is not None:
                return found
    return None


def loaded_call_mark(
    module: Module, call_line: int, attr: str, helper: str, loader: tuple[str, str, int]
) -> Mark:
    """The mark of ``helper(...).attr(...)`` at ``call_line``: a kernel of the loaded module."""
    name, path, line = loader
    return Mark(
        MarkKind.CUSTOM_OP,
        f".{attr}() of the module {helper.rpartition('.')[2]} loads ({name} at {path}:{line})",
        module.rel,
        call_line,
    )


def _returned_calls(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """The calls ``node`` returns (``return load_jit(...)``), not those of nested functions."""
    found: list[ast.Call] = []
    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(current, ast.Return) and isinstance(current.value, ast.Call):
            found.append(current.value)
        stack.extend(children(current))
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))
