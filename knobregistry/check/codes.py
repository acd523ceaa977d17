"""Every code `knobs check` reports: the index of the rules, built from their modules.

KNB0xx: the inventory (code versus registry); KNB1xx: profiles; KNB2xx: waivers,
the baseline and generated docs. A code never changes meaning. A retired or
reserved code stays declared (knobregistry.check.rules.reserved) so that it is never reused.

A rule is declared once, in its module of knobregistry.check.rules, beside the check that
reports it: its code, name, severity, summary, family, example, fix and docs page. This
index collects every `Rule` of those modules, in the order of their codes; the families
of checks take their rules from it (`rules_of`), and SARIF, `knobs rule`, the docs' code
tables and the tests read the same entries. Importing it loads no engine (no YAML): the
rule modules import what their checks need when they run.
"""

from __future__ import annotations

import importlib
import pkgutil

from knobregistry.check import rules as _rules
from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.family_check import Check, CheckRun


def _declared() -> tuple[Rule, ...]:
    """Every `Rule` a module of knobregistry.check.rules declares, by code."""
    found: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(_rules.__path__, f"{_rules.__name__}."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, Rule) and found.setdefault(value.code, value) is not value:
                raise ValueError(f"{value.code} is declared twice (in {info.name})")
    return tuple(found[code] for code in sorted(found))


RULES: tuple[Rule, ...] = _declared()

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


def check_of(family: Family, run: CheckRun | None) -> Check:
    """The check that reports ``family``'s rules of the index by ``run``."""
    return Check(family, rules_of(family), run)
