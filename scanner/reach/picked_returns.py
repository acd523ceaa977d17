"""A test that picks which constant a function returns.

``return "tinygemm" if tinygemm else None`` (unsloth kernels/int4_packed.py:540), or ``if
requested == "unsloth_triton" and _check_grouped_gemm_available(): return
"unsloth_triton"`` followed by other constant returns (unsloth_zoo temporary_patches/
moe_utils.py:2120-2145): the value tested there leaves the function as one constant or
another, and the callers' tests of what it returns (``if layout is None: return None``,
``if backend == "unsloth_triton": ...``) decide with it.
"""

from __future__ import annotations

import ast

from scanner.model import Outcome
from scanner.reach.modules import Module
from scanner.reach.shapes import own_returns
from scanner.source.ast_walk import walk

_PLAIN = (str, bool, int, float, type(None))

Picked = tuple[tuple[Outcome, ...], tuple[Outcome, ...]]


def picked_constants(module: Module, test: ast.expr, carrier: ast.expr) -> Picked | None:
    """The constants the function may return where ``test`` holds, and where it does not:
    ``test`` is that of a ternary a ``return`` returns whole, or of an ``if`` whose body
    ends in the return of a constant other than True or False (``scanner.reach.uses``'s
    ``_early_return`` weighs those) and whose function returns constants alone after it,
    the local ``carrier`` is (if it is one) not being tested again there (``if mode ==
    "grouped": return "grouped"``: which of them it returns, the rest decides with the
    value); None otherwise."""
    outer = module.parent(test)
    if isinstance(outer, ast.IfExp) and outer.test is test:
        statement = module.parent(outer)
        if not isinstance(statement, ast.Return) or statement.value is not outer:
            return None
        held, other = _plain(outer.body), _plain(outer.orelse)
        if held is None or other is None or held == other:
            return None
        return held, other
    if not isinstance(outer, ast.If) or outer.test is not test or outer.orelse:
        return None
    last = outer.body[-1]
    held = _plain(last.value) if isinstance(last, ast.Return) and last.value else None
    if held is None or isinstance(held[0], bool):
        return None
    if any(isinstance(n, ast.Return | ast.Raise) for s in outer.body[:-1] for n in walk(s)):
        return None
    function = module.function_node_around(outer)
    if function is None:
        return None
    end = outer.end_lineno or outer.lineno
    if isinstance(carrier, ast.Name) and any(
        isinstance(n, ast.Name) and n.id == carrier.id and n.lineno > end for n in walk(function)
    ):
        return None
    others: list[Outcome] = []
    for statement in own_returns(function):
        if statement.lineno <= end:
            continue
        value = _plain(statement.value) if statement.value is not None else (None,)
        if value is None:
            return None  # a return the constants do not say
        others.extend(value)
    rest = tuple(dict.fromkeys(o for o in others if o != held[0]))
    if not rest:
        return None
    return held, rest


def _plain(node: ast.expr) -> tuple[Outcome] | None:
    """The constant ``node`` is, as a one-item tuple (None itself may be the constant)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, _PLAIN):
        value: Outcome = node.value
        return (value,)
    return None
