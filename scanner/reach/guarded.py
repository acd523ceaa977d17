"""The values under which a statement guarded by a test of the carried local runs.

``env = os.environ.get("X")`` / ``if env in ("0", "1"): return env == "1"`` / ``return
torch.version.hip is None`` (unslothai unsloth kernels/nf4_gemv.py:178-181): the first
return runs only for "0" and "1"; unset, the function returns what the next line
computes, so what ``env == "1"`` gives unset is not what the function returns.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from scanner.model import Outcome
from scanner.reach.modules import Module
from scanner.reach.shapes import named
from scanner.reach.sides import string_tuples_around
from scanner.reach.truth import truths


def reaching(
    module: Module,
    node: ast.AST,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> list[tuple[str | None, Outcome]]:
    """``outcomes`` less those under which an ``if`` around ``node`` (in its function) that
    tests the local ``name`` sends the run away from it, for every choice of the rest."""
    kept = list(outcomes)
    inner: ast.AST = node
    for outer in module.ancestors(node):
        if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            break
        if isinstance(outer, ast.If) and inner is not outer.test:
            side = inner in outer.body
            if side or inner in outer.orelse:
                kept = _held(module, outer.test, name, kept, side)
        inner = outer
    return kept


def _held(
    module: Module,
    test: ast.expr,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    side: bool,
) -> list[tuple[str | None, Outcome]]:
    is_name = named(name)
    if not any(is_name(n) for n in ast.walk(test) if isinstance(n, ast.expr)):
        return list(outcomes)
    names = string_tuples_around(module, test)
    kept = []
    for value, outcome in outcomes:
        found = truths(test, is_name, outcome, names)
        if found is None or side in found:
            kept.append((value, outcome))
    return kept
