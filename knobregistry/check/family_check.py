"""A check: the family of rules it reports (check.codes), and how it runs over one scan.

`knobs check` runs the families it is given on one scan of the registry's scope. Each
family's check is made from the index of rules (`codes.check_of`) and composed in
knobregistry.check.all_checks, so that nothing here imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule

if TYPE_CHECKING:
    from datetime import date
    from pathlib import Path

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
class Check:
    """One check: the family whose rules it reports, those rules, and its run.

    ``run`` is None for a check whose findings are made elsewhere (the baseline's,
    when a baseline is applied to the result). ``rules`` are the family's, from the
    index of rules (`codes.check_of`); a test may give others.
    """

    family: Family
    rules: tuple[Rule, ...]
    run: CheckRun | None

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(rule.code for rule in self.rules)
