"""A local one side of a gate sets to None where the other side may build an object.

``if int(os.environ.get("X_DISABLE", "0")): obj = None`` / ``else: obj = Fused(...)``, the
object cached and returned, its callers testing ``obj is None`` for the plain fallback.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from scanner.reach.shapes import locals_set
from scanner.source.ast_walk import walk

# What the local holds where the side that may build the object runs: a value that is
# not None and is true, as an object is (``obj is None`` false, ``if obj:`` taken).
AN_OBJECT = True


def nones_set(body: Sequence[ast.stmt], other: Sequence[ast.stmt]) -> list[str]:
    """The locals a block's own statements set to None that the other block binds to a
    call somewhere (``obj = Fused(...)``, in a nested ``if`` too)."""
    built = {
        target.id
        for node in (n for statement in other for n in walk(statement))
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return list(dict.fromkeys(name for name, _ in locals_set(body, _is_none) if name in built))


def _is_none(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is None
