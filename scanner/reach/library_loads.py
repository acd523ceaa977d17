"""A kernel library's own code that loads a module at run time and hands it on.

A tree that is one of the kernel libraries (scanner.reach.libraries) is read as code, but
the kernels some of them run are not in the tree: Hugging Face's kernels downloads a
compiled kernel from the Hub and imports it by path (``spec.loader.exec_module(module)``
then ``return module`` in ``_import_from_path``, huggingface/kernels 8ac69fc,
kernels/src/kernels/importer.py:94-122, reached from ``get_kernel``, load.py:47-123).
Such a module is code no one can read here; the library's entry, with its source, says
what its modules hold. The mark is where a function of the library's own package loads a
module and returns it: one that loads a script and keeps what it finds (a benchmark's
classes, cli/benchmark.py:568-590) hands on no module.
"""

from __future__ import annotations

import ast

from scanner.reach.libraries import library_of
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.source.ast_walk import walk


def library_load(module: Module, call: ast.Call) -> Mark | None:
    """The mark of ``call``, a ``.exec_module(m)`` in a module of a kernel library's own
    package, whose function returns ``m``; None otherwise."""
    if not (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "exec_module"
        and len(call.args) == 1
        and isinstance(call.args[0], ast.Name)
    ):
        return None
    library = library_of(module.name) if module.name else None
    function = module.function_node_around(call) if library is not None else None
    if function is None:
        return None
    loaded = call.args[0].id
    if not any(
        isinstance(node, ast.Return)
        and isinstance(node.value, ast.Name)
        and node.value.id == loaded
        and module.function_node_around(node) is function
        for node in walk(function)
    ):
        return None
    shown = f"{library}: the module {function.name} loads by path at run time and returns"
    return Mark(MarkKind.LIBRARY, shown, module.rel, call.lineno)
