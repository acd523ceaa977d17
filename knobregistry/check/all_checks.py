"""Every check that `knobs check` runs, in its order: the inventory (KNB0xx), the triage's
code (KNB009) and, on the same scan, the profiles (KNB1xx), the waivers (KNB201, KNB202) and
the generated docs (KNB204, KNB205); then the baseline, if one is given (KNB203).
"""

from __future__ import annotations

from knobregistry.check.baseline import BASELINE
from knobregistry.check.codes import rule
from knobregistry.check.diagnostics import Family, Group
from knobregistry.check.family_check import Check
from knobregistry.check.inventory import INVENTORY
from knobregistry.check.profile_checks import PROFILES
from knobregistry.check.rules import docs_in_sync
from knobregistry.check.stale_triage import STALE_TRIAGES
from knobregistry.check.waivers import WAIVERS

# the generated docs against the registry (KNB204, KNB205)
DOCS = Check.of(Family.DOCS, docs_in_sync.run)
# what `knobs check` runs
CHECKS: tuple[Check, ...] = (INVENTORY, STALE_TRIAGES, PROFILES, WAIVERS, DOCS)
ALL_CHECKS: tuple[Check, ...] = (*CHECKS, BASELINE)  # and the baseline's, applied after


def group_of(code: str) -> Group:
    """The pytest plugin's item for a finding of ``code``: its rule's family's group."""
    return rule(code).family.group
