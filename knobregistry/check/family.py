"""A family of checks: the codes it reports, its group, and how it runs over one scan.

`knobs check` runs the families it is given on one scan of the registry's scope.
This package defines the inventory family; the others (profiles, waivers, the
baseline, generated docs) live with what they check and are composed in
knobregistry.families, so that nothing here imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from knobregistry.diagnostics import Diagnostic, Rule
from knobregistry.registry import Registry
from scanner import ScanResult


@dataclass(frozen=True, slots=True, kw_only=True)
class Context:
    """What every family runs on: the registry, the scan of its scope, and the day."""

    registry: Registry
    scan: ScanResult  # site paths relative to the registry's folder
    cwd: Path  # diagnostics show paths relative to it
    full_scope: bool  # False when paths on the command line narrowed the scan
    today: date  # decides which waivers have expired


CheckRun = Callable[[Context], Iterable[Diagnostic]]


@dataclass(frozen=True, slots=True)
class Family:
    """One family of checks: its group (the pytest plugin's item), its rules, its run.

    ``run`` is None for a family whose findings are made elsewhere (the baseline's,
    when a baseline is applied to the result).
    """

    group: str
    rules: tuple[Rule, ...]
    run: CheckRun | None

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(rule.code for rule in self.rules)
