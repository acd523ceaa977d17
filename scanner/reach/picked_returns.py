"""A test that picks which of two constants a function returns.

``return "tinygemm" if tinygemm else None`` (unsloth kernels/int4_packed.py:540): the value
tested there leaves the function as one constant or the other, and the callers' tests of
what it returns (``if layout is None: return None``, :545-547) decide with it.
"""

from __future__ import annotations

import ast

from scanner.model import Outcome
from scanner.reach.modules import Module

_PLAIN = (str, bool, int, float, type(None))


def picked_constants(module: Module, test: ast.expr) -> tuple[Outcome, Outcome] | None:
    """The constants ``test`` picks between, where it is the test of a ternary that a
    ``return`` returns whole: (where it holds, where it does not); None otherwise."""
    expression = module.parent(test)
    if not isinstance(expression, ast.IfExp) or expression.test is not test:
        return None
    statement = module.parent(expression)
    if not isinstance(statement, ast.Return) or statement.value is not expression:
        return None
    held, other = _plain(expression.body), _plain(expression.orelse)
    if held is None or other is None or held == other:
        return None
    return held[0], other[0]


def _plain(node: ast.expr) -> tuple[Outcome] | None:
    """The constant ``node`` is, as a one-item tuple (None itself may be the constant)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, _PLAIN):
        value: Outcome = node.value
        return (value,)
    return None
