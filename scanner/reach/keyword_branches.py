"""Branches a keyword makes: a function registered under a predicate, a flag handed on."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from scanner.model import Outcome
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.reach.sides import Branch

# Keywords a registering decorator takes its predicate under: the decorated function runs
# when the predicate holds (Primus's ``@register_patch(..., condition=pred)``).
CONDITION_KEYWORDS: Final = frozenset({"condition", "when", "predicate", "enabled_if"})


def conditioned(
    module: Module,
    carried: str,
    aliases: Iterable[str],
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> Iterator[Branch]:
    """The functions registered under the predicate ``carried`` (``@register(condition=f)``):
    each runs when ``f`` holds."""
    for alias in sorted(aliases):
        for load in module.loads_named(alias):
            branch = _registered(module, module.parent(load), load, outcomes)
            if branch is not None and module.resolve(load) == carried:
                yield branch


def lambda_conditioned(
    module: Module, body: ast.expr, outcomes: Sequence[tuple[str | None, Outcome]]
) -> Branch | None:
    """The function registered under a lambda whose body is the carried value
    (``@register_patch(..., condition=lambda ctx: getattr(get_args(ctx), "key", False))``,
    Primus fd1eeab backends/megatron/patches/mlp_fla_swiglu_patches.py:91): it runs when
    the value holds."""
    lam = module.parent(body)
    keyword = module.parent(lam) if isinstance(lam, ast.Lambda) and lam.body is body else None
    return _registered(module, keyword, body, outcomes)


def _registered(
    module: Module,
    keyword: ast.AST | None,
    test: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> Branch | None:
    """The function a decorator registers under the predicate ``keyword`` hands it
    (``condition=``): a branch that runs where the predicate holds, and whose leaving runs
    the code it replaces; None where ``keyword`` is no such keyword or the predicate's truth
    does not change from unset."""
    call = module.parent(keyword) if isinstance(keyword, ast.keyword) else None
    function = module.parent(call) if isinstance(call, ast.Call) else None
    if (
        not isinstance(keyword, ast.keyword)
        or keyword.arg not in CONDITION_KEYWORDS
        or not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        or call not in function.decorator_list
    ):
        return None
    taken = {
        value: (found,) for value, outcome in outcomes if (found := _truth(outcome)) is not None
    }
    if None not in taken or len(set(taken.values())) < 2:
        return None
    owner = module.owner_class(function)
    return Branch(module, tuple(function.body), owner, taken, test, True, replaces=True)


def _truth(outcome: Outcome) -> bool | None:
    """Whether a returned value holds; None when the probes could not say."""
    return None if outcome is None else bool(outcome)


# Keywords and keys that make the call they are handed to run its deterministic kernels
# (flash-attn's ``deterministic=True``, transformers' ``flash_kwargs["deterministic"]``).
DETERMINISTIC_FLAGS = frozenset({"deterministic"})


def handed_as_flag(
    module: Module,
    outer: ast.keyword | ast.Assign,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> Branch | None:
    """The carried value handed on as ``deterministic=`` (a keyword, or a key of the kwargs
    a call gets): a branch with no code of its own that reaches a deterministic mode where
    the value is true."""
    if isinstance(outer, ast.keyword):
        key = outer.arg
    else:
        target = outer.targets[0] if len(outer.targets) == 1 else None
        key = None
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
            key = target.slice.value if isinstance(target.slice.value, str) else None
    if key not in DETERMINISTIC_FLAGS:
        return None
    line = getattr(outer, "lineno", None) or carrier.lineno
    taken = {value: (bool(outcome),) for value, outcome in _single(outcomes)}
    mark = Mark(MarkKind.DETERMINISM, f"{key}= handed on", module.rel, line)
    return Branch(module, (), module.owner_class(carrier), taken, carrier, True, marks=(mark,))


def _single(
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> list[tuple[str | None, Outcome]]:
    """``outcomes`` less the values given several (unset, what the machine computes)."""
    counts: dict[str | None, int] = {}
    for value, _ in outcomes:
        counts[value] = counts.get(value, 0) + 1
    return [(v, o) for v, o in outcomes if counts[v] == 1]
