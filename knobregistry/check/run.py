"""`knobs check` as a use case: scan the registry's scope, reconcile, return the result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry.check.diagnostics import Diagnostic, Rule, Severity
from knobregistry.check.family_check import Check, Context
from knobregistry.check.inventory import INVENTORY
from knobregistry.project.scan_for import scan_for
from knobregistry.registry import Policy, Registry


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """What one `knobs check` found; the CLI turns it into output and an exit code."""

    registry: str  # the registry file, relative to the current folder
    policy: Policy
    paths: tuple[str, ...]  # what was scanned, relative to the current folder
    diagnostics: tuple[Diagnostic, ...]
    knobs: int  # knobs the scan found in the scope
    files: int  # files scanned
    stale_checked: bool  # False when PATHs narrowed the scope, so KNB002 was skipped
    rules: tuple[Rule, ...]  # every rule of the checks that ran
    baseline: str | None = None  # the baseline file applied, relative to the current folder
    baselined: int = 0  # findings the baseline hid
    notes: tuple[str, ...] = ()  # what the scan said (a path outside the registry's folder)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    @property
    def drift(self) -> bool:
        """Whether any finding is an error (warnings and notes do not fail the check)."""
        return self.count(Severity.ERROR) > 0


def _targets(registry: Registry, paths: Sequence[Path] | None) -> Sequence[Path]:
    """What a check scans: ``paths``, or the scope's own paths when there are none."""
    return registry.scan_paths() if paths is None else tuple(paths)


def run_check(
    registry: Registry,
    paths: Sequence[Path] | None = None,
    *,
    cwd: Path | None = None,
    families: Sequence[Check] = (INVENTORY,),
    today: date | None = None,
) -> CheckResult:
    """Run ``families`` (default: the inventory alone) on one scan of ``registry``'s scope;
    ``paths`` (relative to ``cwd``) narrow the scope, ``today`` judges waivers."""
    here = cwd if cwd is not None else Path.cwd()
    result = scan_for(registry, paths)
    targets = _targets(registry, paths)
    full = paths is None
    context = Context(
        registry=registry,
        scan=result,
        cwd=here,
        full_scope=full,
        today=today if today is not None else date.today(),
    )
    ran = [family for family in families if family.run is not None]
    found = [d for family in ran if family.run is not None for d in family.run(context)]
    return CheckResult(
        registry=shown(registry.path, here),
        policy=registry.scan.policy,
        paths=tuple(shown(p, here) for p in targets),
        diagnostics=tuple(sorted(found, key=lambda d: d.sort_key)),
        knobs=len(result.knobs),
        files=result.files_scanned,
        stale_checked=full,
        rules=tuple(rule for family in ran for rule in family.rules),
        notes=result.notes,
    )
