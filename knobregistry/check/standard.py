"""Everything `knobs check` runs, in one place for the CLI, the pytest plugin and the test API.

The inventory (KNB0xx) and, on the same scan, the profiles (KNB1xx), the waivers
(KNB201, KNB202) and the generated docs (KNB204, KNB205); then the baseline, if
one is given (KNB203).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from knobregistry.baseline import apply_baseline, load_baseline
from knobregistry.check.guard_rules import DOCS_RULES, WAIVER_RULES
from knobregistry.check.run import Check, CheckResult, run_check
from knobregistry.docsgen.sync import DocsCheck
from knobregistry.paths import shown
from knobregistry.profile_checks import check_profiles
from knobregistry.profiles.rules import PROFILE_RULES
from knobregistry.registry import Registry
from knobregistry.waivers import WaiverCheck


def standard_checks(today: date | None = None) -> tuple[Check, ...]:
    """The checks after the inventory; ``today`` decides which waivers have expired."""
    return (
        Check(PROFILE_RULES, check_profiles),
        Check(WAIVER_RULES, WaiverCheck(today)),
        Check(DOCS_RULES, DocsCheck()),
    )


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
    result = run_check(registry, paths, cwd=here, checks=standard_checks(today))
    if baseline is None:
        return result
    return with_baseline(result, baseline, cwd=here)


def with_baseline(result: CheckResult, baseline: Path, *, cwd: Path) -> CheckResult:
    """``result`` with the baseline file applied; BaselineError when it cannot be read."""
    accepted = load_baseline(baseline, shown(baseline, cwd))
    return apply_baseline(result, accepted, path=baseline, cwd=cwd)
