"""The CUDA graphs an object keeps: a graph one method of its class captures is replayed by
the others (``self._graphs[key].replay()``), with no mark of its own at the replay.

Where the code calls a method of an object it holds (``scanner.reach.held``), what that call
reaches includes the graph capture its class's methods write (``torch.cuda.CUDAGraph()``,
``with torch.cuda.graph(g):``): a replay is the captured kernels running.
"""

from __future__ import annotations

import ast

from scanner.reach.marks import Mark, MarkKind, node_marks
from scanner.reach.modules import Module
from scanner.source.ast_walk import walk

Function = ast.FunctionDef | ast.AsyncFunctionDef


def class_graphs(module: Module, cls: ast.ClassDef) -> list[tuple[Mark, str, int]]:
    """The CUDA graph captures written in the methods of ``cls`` (its own, not those of the
    functions they call), each with the method's name and the line of its ``def``."""
    found: list[tuple[Mark, str, int]] = []
    for method in cls.body:
        if not isinstance(method, Function):
            continue
        for node in walk(method):
            if not isinstance(node, ast.Call):
                continue
            for mark in node_marks(module, node):
                if mark.kind is MarkKind.GRAPH and all(mark != m for m, _, _ in found):
                    found.append((mark, method.name, method.lineno))
    return found
