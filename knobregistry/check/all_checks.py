"""Every check that `knobs check` runs, in its order: the inventory (KNB0xx), the triage's
code (KNB009) and, on the same scan, the profiles (KNB1xx), the waivers (KNB201, KNB202) and
the generated docs (KNB204, KNB205); then the baseline, if one is given (KNB203).

Each family's check reports the rules the index gives it and runs the checks of their modules
(`codes.check_of`): a rule module added to check/rules/ with a ``run(context)`` is run and
reported with no change here.
"""

from __future__ import annotations

from knobregistry.check.codes import check_of, rule
from knobregistry.check.diagnostics import Diagnostic, Family, Group
from knobregistry.check.family_check import Check, Context
from knobregistry.check.inventory import INVENTORY
from knobregistry.check.profile_checks import PROFILES
from knobregistry.check.rule_table import render_codes
from knobregistry.check.rules.docs_in_sync import docs_diagnostics

# the code against what its triage was measured on (KNB009)
STALE_TRIAGES = check_of(Family.TRIAGE)  # rules.stale_triage.run
# the registry's waivers against the day (KNB201, KNB202)
WAIVERS = check_of(Family.WAIVERS)  # rules.waivers.run


def _docs(context: Context) -> list[Diagnostic]:
    """The generated docs against the registry, their tables of codes against the index."""
    return docs_diagnostics(context.registry, cwd=context.cwd, codes=render_codes)


# the generated docs against the registry (KNB204, KNB205)
DOCS = check_of(Family.DOCS, _docs)
# KNB203, reported when a baseline is applied to the result (rules.baseline_entry_gone)
BASELINE = check_of(Family.BASELINE)

# what `knobs check` runs
CHECKS: tuple[Check, ...] = (INVENTORY, STALE_TRIAGES, PROFILES, WAIVERS, DOCS)
ALL_CHECKS: tuple[Check, ...] = (*CHECKS, BASELINE)  # and the baseline's, applied after


def group_of(code: str) -> Group:
    """The pytest plugin's item for a finding of ``code``: its rule's family's group."""
    return rule(code).family.group
