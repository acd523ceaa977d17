"""KNB201 ExpiredWaiver, KNB202 WaiverWithoutOwner: registry entries with an `expires` date,
which `knobs check` fails on once it passes.

A waiver lets a knob through (usually `triage: exempt`, with a `reason`) until a day;
its `owner` is who is asked then. KNB201 reports an expired waiver (an error),
KNB202 a waiver without an owner (a warning). "Today" is injected for previews and tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from knobregistry._text.paths import shown
from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import INVENTORY, REGISTRY, example

if TYPE_CHECKING:
    from pathlib import Path

    from knobregistry.check.family_check import Context
    from knobregistry.registry import KnobEntry, Registry

# The waivers' and the baseline's examples: the inventory's project, checked on a given day.
_TODAY = ("--today", "2026-07-01")


def _waived_registry(expires: str, *, owner: bool) -> str:
    """The inventory's registry, its knob waived until ``expires``, with an owner or none."""
    waived = f"exempt\n    reason: The Triton path is being rewritten.\n    expires: {expires}"
    return REGISTRY.replace("breaks-bitwise", waived + ("\n    owner: hc-team" if owner else ""))


# KNB201's section of docs/waivers.md, below its heading (the site renders it there).
KNB201_SECTION = """\
An entry's `expires` date has passed. An error: the check fails until the knob
is triaged (and `expires` removed) or, with its owner's agreement, the date is
moved. A baseline never hides it: the date is the agreement.
"""

KNB201 = Rule(
    code="KNB201",
    name="ExpiredWaiver",
    title="A waiver's expiry date has passed.",
    description=(
        "A registry entry with an `expires` date is a waiver: the knob is let through "
        "(usually `triage: exempt`) until that day. After it, `knobs check` fails on the "
        "entry until the knob is triaged or the waiver renewed. Reported at the `expires` "
        "key in the registry."
    ),
    example=(
        "PRIMUS_FP8:\n"
        "  triage: exempt\n"
        "  reason: The FP8 path is being rewritten.\n"
        "  owner: fp8-team\n"
        "  expires: 2026-06-30    # and today is later"
    ),
    examples=example(
        INVENTORY,
        invalid={"registry.yaml": _waived_registry("2026-06-30", owner=True)},
        valid={"registry.yaml": _waived_registry("2026-12-31", owner=True)},
        arguments=_TODAY,
    ),
    page="waivers.md",
    section=KNB201_SECTION,
    family=Family.WAIVERS,
    help=(
        "Triage the knob and remove `expires`; or, if its owner agrees, move `expires` to a "
        "later date."
    ),
)

# KNB202's section of docs/waivers.md, below its heading (the site renders it there).
KNB202_SECTION = """\
A waiver names no `owner`, so nobody is asked when it runs out. A warning: it
does not fail the check.

    registry.yaml:24:5: KNB202 warning: The waiver of PRIMUS_FP8 (until 2026-06-30) names no owner, so nobody is asked to triage it when it runs out.
        Add `owner:` (a person, a team or a handle) under knobs.PRIMUS_FP8.

    Found 1 warning: 4 knobs in 3 files checked against registry.yaml (policy all).
"""  # noqa: E501

KNB202 = Rule(
    code="KNB202",
    name="WaiverWithoutOwner",
    title="A waiver names no owner.",
    description=(
        "An entry with an `expires` date names no `owner`, so nobody is asked to triage the "
        "knob when the waiver runs out. A warning: it does not fail the check."
    ),
    example=(
        "PRIMUS_FP8:\n"
        "  triage: exempt\n"
        "  reason: The FP8 path is being rewritten.\n"
        "  expires: 2026-06-30    # and no `owner:`"
    ),
    examples=example(
        INVENTORY,
        invalid={"registry.yaml": _waived_registry("2026-12-31", owner=False)},
        valid={"registry.yaml": _waived_registry("2026-12-31", owner=True)},
        arguments=_TODAY,
    ),
    page="waivers.md",
    section=KNB202_SECTION,
    family=Family.WAIVERS,
    help="Add `owner:` (a person, a team or a handle) to the entry.",
    severity=Severity.WARNING,
)


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
                KNB201.diagnostic(
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
                KNB202.diagnostic(
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


def run(context: Context) -> list[Diagnostic]:
    """The waivers' check: the registry's waivers against the day."""
    return waiver_diagnostics(context.registry, today=context.today, cwd=context.cwd)
