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
from scanner.reach.shapes import named, own_returns
from scanner.reach.sides import names_around
from scanner.reach.truth import IsCarrier, truths
from scanner.source.ast_walk import walk


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
    if not _names(test, is_name):
        return list(outcomes)
    names = names_around(module, test)
    kept = []
    for value, outcome in outcomes:
        found = truths(test, is_name, outcome, names)
        if found is None or side in found:
            kept.append((value, outcome))
    return kept


def fallen_through(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    held: Sequence[tuple[str | None, Outcome]],
) -> list[tuple[str | None, Outcome]]:
    """What ``function`` may return with the variable unset, where a guard keeps unset away
    from the return of the carried local and the function's other returns compute their
    value without it: each constant returned (``return "dequant"``), or both truths of a
    boolean computed from the machine (``return torch.version.hip is None``, unslothai
    unsloth kernels/nf4_gemv.py:179-181), or of a call where every return of the local is a
    truth (``return env[0] == '1'`` / ``return torch.are_deterministic_algorithms_enabled()``,
    state-spaces/mamba mamba_ssm/utils/determinism.py:21-27: the rule of
    ``branches._computed_unset``); none when a return it may reach says neither."""
    if any(v is None for v, _ in held) or not any(v is None for v, _ in outcomes):
        return []
    unset = [(v, o) for v, o in outcomes if v is None]
    returns = own_returns(function)
    is_name = named(name)
    carried = [r.value for r in returns if r.value is not None and _names(r.value, is_name)]
    truths_only = bool(carried) and all(_boolean(v) for v in carried)
    found: list[Outcome] = []
    for statement in returns:
        value = statement.value
        if value is None or _names(value, is_name):
            continue  # the carried local's return, or a bare return
        if not reaching(module, statement, name, unset):
            continue  # unset never gets there
        if isinstance(value, ast.Constant) and isinstance(value.value, str | bool | int | float):
            found.append(value.value)
        elif _boolean(value) or (truths_only and isinstance(value, ast.Call)):
            found.extend((True, False))
        else:
            return []
    return [(None, o) for o in dict.fromkeys(found)] if len(set(found)) > 1 else []


def _names(node: ast.expr, is_name: IsCarrier) -> bool:
    """Whether ``node`` uses the local ``is_name`` accepts."""
    return any(is_name(n) for n in walk(node) if isinstance(n, ast.expr))


def _boolean(node: ast.expr) -> bool:
    """Whether ``node`` is a truth: a comparison, ``and``/``or`` of truths, ``not``."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_operand(v) for v in node.values) and any(_boolean(v) for v in node.values)
    return False


def _operand(node: ast.expr) -> bool:
    """Whether ``node`` may stand in a truth's ``and``/``or``: a truth, a name, an attribute,
    a call, or ``and``/``or`` of those (``(same_node(g) or spans(g))``, vllm 0.33.0
    v1/attention/ops/cp_common.py:66-73)."""
    if isinstance(node, ast.BoolOp):
        return all(_operand(v) for v in node.values)
    return _boolean(node) or isinstance(node, ast.Name | ast.Attribute | ast.Call)
