from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule, Severity
from knobregistry.check.examples import INVENTORY, REGISTRY, example

# The waivers' and the baseline's examples: the inventory's project, checked on a given day.
_TODAY = ("--today", "2026-07-01")


def _waiver(expires: str, *, owner: bool) -> str:
    """The inventory's registry, its knob waived until ``expires``, with an owner or none."""
    waived = f"exempt\n    reason: The Triton path is being rewritten.\n    expires: {expires}"
    return REGISTRY.replace("breaks-bitwise", waived + ("\n    owner: hc-team" if owner else ""))


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
        invalid={"registry.yaml": _waiver("2026-06-30", owner=True)},
        valid={"registry.yaml": _waiver("2026-12-31", owner=True)},
        arguments=_TODAY,
    ),
    page="waivers.md",
    family=Family.WAIVERS,
    help=(
        "Triage the knob and remove `expires`; or, if its owner agrees, move `expires` to a "
        "later date."
    ),
)

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
        invalid={"registry.yaml": _waiver("2026-12-31", owner=False)},
        valid={"registry.yaml": _waiver("2026-12-31", owner=True)},
        arguments=_TODAY,
    ),
    page="waivers.md",
    family=Family.WAIVERS,
    help="Add `owner:` (a person, a team or a handle) to the entry.",
    severity=Severity.WARNING,
)
