"""`knobs check` as a use case: scan the registry's scope, reconcile, return the result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from knobregistry.cache import default_cache_dir
from knobregistry.check.family import Check, Context
from knobregistry.check.inventory import INVENTORY
from knobregistry.diagnostics import Diagnostic, Rule, Severity
from knobregistry.paths import shown
from knobregistry.progress import step
from knobregistry.pyproject import PyprojectError, ScannerSettings, project_settings
from knobregistry.registry import (
    Policy,
    Registry,
    RegistryError,
    RegistryProblem,
    pyproject_problem,
)
from knobregistry.trainer_types import trainer_config_types
from scanner import ScanResult, scan
from scanner.source.files import DEFAULT_INCLUDE


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


def scan_scope(
    registry: Registry,
    paths: Sequence[Path] | None = None,
    *,
    project: ScannerSettings | None = None,
) -> ScanResult:
    """Scan the registry's scope, or ``paths`` instead of its paths (same filters), with
    the default cache folder and the project's scanner settings.

    The settings are the scope's `launch_facts`, `accessors` and `env_blocks`, then ``project``'s
    (default: ``[tool.knobs]`` of the pyproject.toml nearest the registry). Output
    paths are relative to the registry's folder, where its exclude globs apply.
    Raises RegistryError when a path of the scope does not exist, or when the
    pyproject.toml cannot be read.
    """
    if paths is None:
        _require_scope_paths(registry)
    scope = registry.scan
    settings = ScannerSettings(
        scope.launch_facts, scope.accessors, env_blocks=scope.env_blocks
    ).merged(project if project is not None else _project(registry))
    targets = _targets(registry, paths)
    with step("scanning " + ", ".join(shown(t, Path.cwd()) for t in targets)):
        return scan(
            targets,
            include=scope.include or DEFAULT_INCLUDE,
            exclude=scope.exclude,
            match=scope.match,
            root=registry.root,
            cache_dir=default_cache_dir(),
            launch_facts=settings.launch_facts,
            accessors=settings.accessors,
            printed_writes=settings.printed_writes,
            env_blocks=settings.blocks,
            config_types=trainer_config_types(),
        )


def _project(registry: Registry) -> ScannerSettings:
    """``[tool.knobs]`` of the pyproject.toml nearest the registry."""
    try:
        return project_settings(registry.root)
    except PyprojectError as exc:
        raise pyproject_problem(exc) from exc


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
    result = scan_scope(registry, paths)
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


def _require_scope_paths(registry: Registry) -> None:
    problems = []
    display = shown(registry.path, Path.cwd())
    for index, (rel, full) in enumerate(
        zip(registry.scan.paths, registry.scan_paths(), strict=True)
    ):
        if not full.exists():
            line, column = registry.position("scan", "paths", index)
            problems.append(
                RegistryProblem(
                    path=display,
                    line=line,
                    column=column,
                    key_path=("scan", "paths", index),
                    message=f"'{rel}' does not exist; scan paths are relative to the registry's "
                    f"folder ({shown(registry.root, Path.cwd())}).",
                )
            )
    if problems:
        raise RegistryError(problems)
