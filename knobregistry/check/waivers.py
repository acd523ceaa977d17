"""Waivers: registry entries with an `expires` date, which `knobs check` fails on once it passes.

A waiver lets a knob through (usually `triage: exempt`, with a `reason`) until a day;
its `owner` is who is asked then. KNB201 reports an expired waiver (an error),
KNB202 a waiver without an owner (a warning). "Today" is injected for previews and tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry.check.codes import rule
from knobregistry.check.diagnostics import Diagnostic, Family
from knobregistry.check.family_check import Check, Context
from knobregistry.registry import KnobEntry, Registry

EXPIRED_WAIVER = rule("KNB201")
WAIVER_WITHOUT_OWNER = rule("KNB202")


@dataclass(frozen=True, slots=True, kw_only=True)
class Waiver:
    """One entry with an `expires` date."""

    name: str
    expires: date
    triage: str
    owner: str | None
    reason: str | None

    def expired(self, today: date) -> bool:
        """Whether the waiver has run out: it holds through its `expires` day."""
        return today > self.expires


def waivers(registry: Registry) -> tuple[Waiver, ...]:
    """Every entry of ``registry`` with an `expires` date, in the registry's order."""
    return tuple(_waiver(entry) for entry in registry.knobs.values() if entry.expires is not None)


def _waiver(entry: KnobEntry) -> Waiver:
    assert entry.expires is not None
    return Waiver(
        name=entry.name,
        expires=entry.expires,
        triage=entry.triage.value,
        owner=entry.owner,
        reason=entry.reason,
    )


def waiver_diagnostics(registry: Registry, *, today: date, cwd: Path) -> list[Diagnostic]:
    """KNB201 for each expired waiver, KNB202 for each waiver without an owner, sorted."""
    file = shown(registry.path, cwd)
    found: list[Diagnostic] = []
    for waiver in waivers(registry):
        line, column = registry.position("knobs", waiver.name, "expires")
        if waiver.expired(today):
            found.append(
                EXPIRED_WAIVER.diagnostic(
                    file,
                    line,
                    column,
                    _expired_message(waiver),
                    fix=_expired_fix(waiver, file),
                    knob=waiver.name,
                )
            )
        if waiver.owner is None:
            found.append(
                WAIVER_WITHOUT_OWNER.diagnostic(
                    file,
                    line,
                    column,
                    f"The waiver of {waiver.name} (until {waiver.expires.isoformat()}) "
                    "names no owner, so nobody is asked to triage it when it runs out.",
                    fix=f"Add `owner:` (a person, a team or a handle) under knobs.{waiver.name}.",
                    knob=waiver.name,
                )
            )
    return sorted(found, key=lambda d: d.sort_key)


def _expired_message(waiver: Waiver) -> str:
    details = [f"triage {waiver.triage}"]
    if waiver.owner is not None:
        details.append(f"owner {waiver.owner}")
    if waiver.reason is not None:
        details.append(f"reason: {json.dumps(waiver.reason, ensure_ascii=False)}")
    return (
        f"The waiver of {waiver.name} expired on {waiver.expires.isoformat()} "
        f"({', '.join(details)})."
    )


def _expired_fix(waiver: Waiver, file: str) -> str:
    who = waiver.owner if waiver.owner is not None else "its owner"
    return (
        f"Triage {waiver.name} (set `triage` under knobs.{waiver.name} in {file} and record the "
        f"evidence) and remove `expires`; or, if {who} agrees, move `expires` to a later date."
    )


def _run(context: Context) -> list[Diagnostic]:
    return waiver_diagnostics(context.registry, today=context.today, cwd=context.cwd)


WAIVERS = Check.of(Family.WAIVERS, _run)
