"""Every code `knobs check` reports: the index of the rules, built from their modules.

KNB0xx: the inventory (code versus registry); KNB1xx: profiles; KNB2xx: waivers,
the baseline and generated docs. A code never changes meaning. A retired or
reserved code stays declared (knobregistry.check.rules.reserved) so that it is never reused.

A rule is declared once, in its module of knobregistry.check.rules, beside the check that
reports it: its code, name, severity, summary, family, example, fix and docs page. This
index collects every `Rule` of those modules, in the order of their codes, and the check of
a module that has one of its own (``run(context)``); the families of checks take their
rules and those checks from it (`check_of`), and SARIF, `knobs rule`, the docs' code
tables and the tests read the same entries. Importing it loads no engine (no YAML): the
rule modules import what their checks need when they run.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass

from knobregistry.check import rules as _rules
from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.family_check import Check, CheckRun, Context


@dataclass(frozen=True, slots=True)
class _Module:
    """A module of knobregistry.check.rules: the rules it declares, and its check when it
    has one of its own (a function ``run(context)``)."""

    name: str
    rules: tuple[Rule, ...]
    run: CheckRun | None


def _modules() -> tuple[_Module, ...]:
    """Every module of knobregistry.check.rules, by name."""
    found = []
    for info in pkgutil.iter_modules(_rules.__path__, f"{_rules.__name__}."):
        module = importlib.import_module(info.name)
        declared = tuple(v for v in vars(module).values() if isinstance(v, Rule))
        run = getattr(module, "run", None)
        found.append(_Module(info.name, declared, run if callable(run) else None))
    return tuple(found)


def _declared(modules: tuple[_Module, ...]) -> tuple[Rule, ...]:
    """Every `Rule` the modules declare, by code; ValueError for a code declared twice."""
    found: dict[str, Rule] = {}
    for module in modules:
        for rule in module.rules:
            if found.setdefault(rule.code, rule) is not rule:
                raise ValueError(f"{rule.code} is declared twice (in {module.name})")
    return tuple(found[code] for code in sorted(found))


_MODULES = _modules()
RULES: tuple[Rule, ...] = _declared(_MODULES)

_BY_CODE = {rule.code: rule for rule in RULES}


def rule(code: str) -> Rule:
    """The rule for ``code``; KeyError for an unknown code."""
    return _BY_CODE[code]


def find_rule(code_or_name: str) -> Rule | None:
    """The rule whose code or name is ``code_or_name`` (any case); None when there is none."""
    folded = code_or_name.strip().casefold()
    return next((r for r in RULES if folded in (r.code.casefold(), r.name.casefold())), None)


def rules(*codes: str) -> tuple[Rule, ...]:
    """The rules for ``codes``, in the order given."""
    return tuple(_BY_CODE[code] for code in codes)


def rules_of(family: Family) -> tuple[Rule, ...]:
    """The rules of ``family``, in the order of their codes."""
    return tuple(r for r in RULES if r.family is family)


def runs_of(family: Family) -> tuple[CheckRun, ...]:
    """The checks of their own that the rule modules of ``family`` define (``run``), by module."""
    return tuple(
        m.run for m in _MODULES if m.run is not None and m.rules and m.rules[0].family is family
    )


def check_of(family: Family, run: CheckRun | None = None) -> Check:
    """The check of ``family``: its rules of the index, reported by ``run`` (the family's
    own, which runs several rules' checks on one pass) and by each rule module's ``run``;
    None when there is neither (the baseline's, applied after the check)."""
    runs = tuple(r for r in (run, *runs_of(family)) if r is not None)
    if not runs:
        return Check(family, rules_of(family), None)

    def every(context: Context) -> Iterable[Diagnostic]:
        return [d for each in runs for d in each(context)]

    return Check(family, rules_of(family), every if len(runs) > 1 else runs[0])
