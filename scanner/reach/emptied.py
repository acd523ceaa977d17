"""A local one side of a gate empties where the gate's own test needs it non-empty.

``if not (layers and _wants_compile(model, forwards)): layers = []``, then ``if layers:``
compiles each layer (unsloth models/_decision_fast.py:160-161, :177-194): where the test
holds the local is empty; where it does not, the test itself has found the local true.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from scanner.reach.shapes import locals_set

# What an emptied local holds, as the tests further on read it: false (``if layers:`` is
# not taken, ``layers is None`` does not hold).
EMPTY = False

_EMPTY_CALLS = ("list", "dict", "tuple", "set")


def emptied(body: Sequence[ast.stmt], test: ast.expr) -> list[str]:
    """The locals ``body``'s own statements set to an empty collection (``[]``, ``{}``,
    ``()``, ``list()``) that ``test`` tests for truth itself (an operand of its ``and`` /
    ``or`` / ``not``), so that where ``test`` does not send the run into ``body``, the local
    was true."""
    truthy = _truth_operands(test)
    return list(dict.fromkeys(name for name, _ in locals_set(body, _empty) if name in truthy))


def _truth_operands(test: ast.expr) -> set[str]:
    """The names ``test`` takes the truth of: itself, or an operand of its boolean
    operators."""
    if isinstance(test, ast.Name):
        return {test.id}
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _truth_operands(test.operand)
    if isinstance(test, ast.BoolOp):
        return set().union(*(_truth_operands(v) for v in test.values))
    return set()


def _empty(value: ast.expr) -> bool:
    if isinstance(value, ast.List | ast.Tuple | ast.Set) and not value.elts:
        return True
    if isinstance(value, ast.Dict) and not value.keys:
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _EMPTY_CALLS
        and not value.args
        and not value.keywords
    )
