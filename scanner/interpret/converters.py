"""Small module-level functions a value is handed to and handed back from: converters.

vllm's ``lambda: maybe_convert_bool(os.getenv(N))`` (envs.py:2245) reads the variable and
hands it to ``def maybe_convert_bool(value): if value is None: return None; return
bool(int(value))`` in the same file. Such a function is run like a wrapper, so the gate is
judged by what it returns; narrowing keeps it (``scanner.source.narrow.is_converter``: the
same test, on the function's own text).
"""

from __future__ import annotations

import ast

import libcst as cst

from scanner.source.narrow import is_converter


def find_converter(
    tree: cst.Module, name: str, known: dict[str, cst.FunctionDef | None]
) -> cst.FunctionDef | None:
    """The converter ``name`` defines at the top of ``tree``, or None (``known``: the
    answers so far, by name)."""
    if name in known:
        return known[name]
    found: cst.FunctionDef | None = None
    for statement in tree.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            found = statement  # the last definition is the one a call runs
    if found is not None and not _converts(tree, found):
        found = None
    known[name] = found
    return found


def _converts(tree: cst.Module, function: cst.FunctionDef) -> bool:
    try:
        parsed = ast.parse(tree.code_for_node(function).strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return len(parsed.body) == 1 and is_converter(parsed.body[0])
