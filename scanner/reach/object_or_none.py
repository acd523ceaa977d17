"""A local one side of a gate sets to None where the other side may build an object.

``if int(os.environ.get("X_DISABLE", "0")): obj = None`` / ``else: obj = Fused(...)``, the
object cached and returned, its callers testing ``obj is None`` for the plain fallback.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

# What the local holds where the side that may build the object runs: a value that is
# not None and is true, as an object is (``obj is None`` false, ``if obj:`` taken).
AN_OBJECT = True


def nones_set(body: Sequence[ast.stmt], other: Sequence[ast.stmt]) -> list[str]:
    """The locals a block's own statements set to None that the other block binds to a
    call somewhere (``obj = Fused(...)``, in a nested ``if`` too)."""
    built = {
        target.id
        for node in (n for statement in other for n in ast.walk(statement))
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: list[str] = []
    for statement in body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Constant)
            and statement.value.value is None
            and target.id in built
            and target.id not in found
        ):
            found.append(target.id)
    return found
