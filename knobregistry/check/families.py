"""Every check that `knobs check` runs, composed for the CLI, the pytest plugin
and the test API: the inventory (KNB0xx), the triage's code (KNB009) and, on the same
scan, the profiles (KNB1xx),
the waivers (KNB201, KNB202) and the generated docs (KNB204, KNB205); then the
baseline, if one is given (KNB203).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry.check.baseline import BASELINE, apply_baseline, load_baseline
from knobregistry.check.codes import rule
from knobregistry.check.diagnostics import Group
from knobregistry.check.family import Check
from knobregistry.check.inventory import INVENTORY
from knobregistry.check.profile_checks import PROFILES
from knobregistry.check.run import CheckResult, run_check
from knobregistry.check.stale_triage import STALE_TRIAGES
from knobregistry.check.waivers import WAIVERS
from knobregistry.docsgen.sync import DOCS
from knobregistry.registry import Registry

# what `knobs check` runs
CHECKS: tuple[Check, ...] = (INVENTORY, STALE_TRIAGES, PROFILES, WAIVERS, DOCS)
ALL_CHECKS: tuple[Check, ...] = (*CHECKS, BASELINE)  # and the baseline's, applied after


def group_of(code: str) -> Group:
    """The pytest plugin's item for a finding of ``code``: its rule's family's group."""
    return rule(code).family.group


def full_check(
    registry: Registry,
    paths: Sequence[Path] | None = None,
    *,
    cwd: Path | None = None,
    today: date | None = None,
    baseline: Path | None = None,
) -> CheckResult:
    """Every check of `knobs check`, and the baseline when given.

    Raises RegistryError for a registry whose scope cannot be scanned, and
    BaselineError for a baseline file that cannot be read.
    """
    here = cwd if cwd is not None else Path.cwd()
    result = run_check(registry, paths, cwd=here, families=CHECKS, today=today)
    if baseline is None:
        return result
    return with_baseline(result, baseline, cwd=here)


def with_baseline(result: CheckResult, baseline: Path, *, cwd: Path) -> CheckResult:
    """``result`` with the baseline file applied; BaselineError when it cannot be read."""
    accepted = load_baseline(baseline, shown(baseline, cwd))
    return apply_baseline(result, accepted, path=baseline, cwd=cwd)
