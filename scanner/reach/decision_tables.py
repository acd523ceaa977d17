"""Several variables read together into one decision: a function that reads N variables and
returns a constant or an enumeration member for each combination of their values (ROLL
mcore_adapter models/model_utils.py:149-168: NVTE_FLASH_ATTN, NVTE_FUSED_ATTN and
NVTE_UNFUSED_ATTN mapped to a megatron-core AttnBackend member).

The table is evaluated: every combination of the values its tests compare with (and unset)
runs through the function's ``if TEST: return X`` chain. What the function returns is
followed to where its caller stores it: a trainer setting whose plain value is one of the
members (``scanner.reach.trainer_keys``). Where the variables unset return another of the
setting's values and one full combination returns the plain one, the variables choose a
kernel together: that combination, every variable of it set, is what a recipe writes (all
of it, or none).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from scanner.model import Role, Site
from scanner.reach.carriers import Carriers
from scanner.reach.modules import Module, Tree
from scanner.reach.trainer_keys import TrainerKey, trainer_key
from scanner.reach.truth import _compared
from scanner.roles import Evidence
from scanner.source.ast_walk import walk

MAX_ROWS: Final = 256  # the combinations one table may hold
_UNKNOWN: Final = object()

Helpers = Mapping[str, tuple[tuple[str, ...], ast.expr]]


@dataclass(frozen=True, slots=True)
class Table:
    """What a function returns for each combination of the variables it reads."""

    names: tuple[str, ...]  # the variables, in the order they are read
    # Each combination (None: the variable unset), what it returns, and the return's line;
    # in the order of the values: unset first, then the strings the tests compare, sorted.
    rows: tuple[tuple[tuple[str | None, ...], str, int], ...]


def decision_table(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef, reads: Sequence[Site]
) -> Table | None:
    """The table of ``function``, whose own statements bind a local to each read of
    ``reads`` and then hold only one-line helpers (``def is_set(env, v): return ...``),
    ``if TEST: return X`` and a last ``return X``, each X a constant or a member
    (``AttnBackend.local``); None for any other shape or a test it cannot evaluate."""
    locals_: dict[str, str] = {}
    unset: dict[str, str | None] = {}  # what each local holds with its variable unset
    last = -1
    for at, statement in enumerate(function.body):
        read = next((s for s in reads if _binds(statement, s)), None)
        if read is not None and read.target is not None:
            locals_[read.target] = read.name
            unset[read.target] = read.default
            last = at
    if len(locals_) != len(reads) or len(set(locals_.values())) < 2:
        return None
    helpers: dict[str, tuple[tuple[str, ...], ast.expr]] = {}
    chain: list[tuple[ast.expr, ast.expr]] = []
    rest = function.body[last + 1 :]
    final = _returned_alone(rest[-1:])
    if final is None:
        return None
    for statement in rest[:-1]:
        returned = _returned_alone(getattr(statement, "body", []))
        if returned is None:
            return None
        if isinstance(statement, ast.FunctionDef) and not statement.decorator_list:
            helpers[statement.name] = (tuple(a.arg for a in statement.args.args), returned)
        elif isinstance(statement, ast.If) and not statement.orelse:
            chain.append((statement.test, returned))
        else:
            return None
    chain.append((ast.Constant(True), final))
    if any(
        isinstance(n, ast.Name) and n.id in locals_ and not isinstance(n.ctx, ast.Load)
        for s in rest
        for n in walk(s)
    ):
        return None  # a variable bound again
    tests = [t for t, _ in chain] + [e for _, e in helpers.values()]
    compared = sorted(
        {n.value for t in tests for n in walk(t) if isinstance(n, ast.Constant)}
        - {None, True, False},
        key=str,
    )
    values: list[str | None] = [None, *(v for v in compared if isinstance(v, str))]
    if len(values) ** len(locals_) > MAX_ROWS:
        return None
    rows = []
    for combination in itertools.product(values, repeat=len(locals_)):
        env = {
            local: unset[local] if value is None else value
            for local, value in zip(locals_, combination, strict=True)
        }
        row = _returned(chain, env, helpers)
        if row is None:
            return None
        rows.append((combination, *row))
    return Table(tuple(locals_.values()), tuple(rows))


def _returned_alone(body: Sequence[ast.stmt]) -> ast.expr | None:
    """What a block that is one ``return X`` returns."""
    if len(body) == 1 and isinstance(only := body[0], ast.Return):
        return only.value
    return None


def _binds(statement: ast.stmt, site: Site) -> bool:
    """Whether ``statement`` is ``local = <the read of site>``, the read's string itself
    (``os.getenv(N, d)``, not ``int(os.getenv(N, d))``)."""
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(target := statement.targets[0], ast.Name)
        and target.id == site.target
        and isinstance(statement.value, ast.Call)
        and (statement.value.lineno, statement.value.col_offset + 1) == (site.line, site.column)
    )


def _returned(
    chain: Sequence[tuple[ast.expr, ast.expr]], env: Mapping[str, object], helpers: Helpers
) -> tuple[str, int] | None:
    """The text of what the chain returns under ``env``, and its line."""
    for test, value in chain:
        truth = _value(test, env, helpers)
        if truth is _UNKNOWN:
            return None
        if truth:
            shown = _shown(value)
            return (shown, value.lineno) if shown is not None else None
    return None


def _shown(node: ast.expr) -> str | None:
    """``Cls.member`` of a member, the repr of a constant; None for anything else."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | bool):
        return repr(node.value)
    return None


def _value(node: ast.expr, env: Mapping[str, object], helpers: Helpers) -> object:
    """The value of ``node`` with the variables as ``env`` holds them (None: unset)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id, _UNKNOWN)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _value(node.operand, env, helpers)
        return _UNKNOWN if inner is _UNKNOWN else not inner
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        value: object = _UNKNOWN
        for operand in node.values:
            value = _value(operand, env, helpers)
            if value is _UNKNOWN or bool(value) is not is_and:
                return value
        return value
    if isinstance(node, ast.Compare):
        left = _value(node.left, env, helpers)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _value(right_node, env, helpers)
            if left is _UNKNOWN or right is _UNKNOWN:
                return _UNKNOWN
            holds = _compared(op, left, right)
            if holds is _UNKNOWN or not holds:
                return holds
            left = right
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        helper = helpers.get(node.func.id)
        if helper is None or len(helper[0]) != len(node.args):
            return _UNKNOWN
        given = [_value(a, env, helpers) for a in node.args]
        if any(g is _UNKNOWN for g in given):
            return _UNKNOWN
        return _value(helper[1], dict(zip(helper[0], given, strict=True)), helpers)
    return _UNKNOWN


def together(reads: Sequence[Site], tree: Tree, carriers: Carriers) -> Evidence | None:
    """A kernel choice the variables of ``reads`` (the sites of one function, one per
    variable) make together, with the whole combination that runs the plain path
    (``Evidence.together``; the table's first such row where several do; each variable's
    own ``value`` is its part of it); None where the code does not say."""
    module = tree.module_at(reads[0].path)
    function = module.function_node_around_line(reads[0].line) if module is not None else None
    if module is None or function is None or not isinstance(module.parent(function), ast.Module):
        return None
    table = decision_table(module, function, reads)
    if table is None:
        return None
    stored = _stored_in(module, function, carriers, tree)
    if stored is None:
        return None
    known, where = stored
    returned = {member for _, member, _ in table.rows}
    if any(m.rsplit(".", 1)[-1] not in known.values for m in returned):
        return None  # another enumeration than the setting's
    unset = next(r for r in table.rows if all(v is None for v in r[0]))
    if unset[1].rsplit(".", 1)[-1] != known.default:
        return None  # unset, it is not the trainer's default, whose kernels it documents
    plain = [r for r in table.rows if r[1].rsplit(".", 1)[-1] == known.off and None not in r[0]]
    if not plain:
        return None
    values, member, line = plain[0]
    pairs = tuple((n, v) for n, v in zip(table.names, values, strict=True) if v is not None)
    setting = " and ".join(f"{n}={v!r}" for n, v in pairs)
    reason = (
        f"with {setting} (all {len(pairs)} of them, or none) {function.name} returns {member} "
        f"({module.rel}:{line}); unset, it returns {unset[1]} ({module.rel}:{unset[2]}); "
        f"{where} stores what it returns in {known.key}, which {known.source} documents as "
        f"{known.meaning}; {known.off!r} runs none of its kernels"
    )
    return Evidence(Role.KERNEL, reason, default_reaches=True, together=pairs)


def _stored_in(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef, carriers: Carriers, tree: Tree
) -> tuple[TrainerKey, str] | None:
    """The one implementation setting of the trainer every call of ``function`` stores its
    result in (``self.attention_backend = f(...)``, ``f(...)`` passed as
    ``attention_backend=``), with the first call's place."""
    qualified = module.qualified(function.name)
    found: list[tuple[TrainerKey | None, str]] = []
    for rel in carriers.modules_naming(module, function.name):
        caller = tree.module(rel)
        if caller is None:
            continue
        for call in caller.calls_named(function.name):
            if caller.resolve(call.func, caller.owner_class(call)) != qualified:
                continue
            found.append((trainer_key(_key(caller, call)), f"{caller.rel}:{call.lineno}"))
    keys = {k for k, _ in found}
    if len(keys) != 1:
        return None
    (known,) = keys
    if known is None or known.off is None or known.role is not Role.KERNEL:
        return None
    return known, found[0][1]


def _key(module: Module, call: ast.Call) -> str | None:
    """The name the result of ``call`` is stored or passed under."""
    outer = module.parent(call)
    if isinstance(outer, ast.keyword):
        return outer.arg
    if isinstance(outer, ast.Assign) and len(outer.targets) == 1:
        target = outer.targets[0]
        if isinstance(target, ast.Attribute):
            return target.attr
        if isinstance(target, ast.Name):
            return target.id
    return None
