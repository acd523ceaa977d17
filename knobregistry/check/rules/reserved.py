"""The codes no check reports, declared here and only here: reserved (caught elsewhere, such as
when the registry loads) or retired. They stay in the index so that a code is never reused.

KNB005 ExemptWithoutReason: the registry's schema rejects an exempt knob without a reason.
"""

from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import INVENTORY, REGISTRY, example

_EXEMPT = "exempt\n    reason: Triaged by hand."


# KNB005's section of docs/checks.md, below its heading (the site renders it there).
KNB005_SECTION = """\
Reserved. A knob with `triage: exempt` must say why in `reason`; the registry's
schema requires it, so the registry does not load and `knobs check` exits 2 with
the file, line and key, before any code is scanned:

    registry.yaml:3:3: knobs.PRIMUS_HC_TRITON: missing required key 'reason'; an exempt knob must say why it needs no triage.

The code is kept so that it never means anything else.
"""  # noqa: E501

KNB005 = Rule(
    code="KNB005",
    name="ExemptWithoutReason",
    title="An exempt knob has no reason (a registry error).",
    description=(
        "A knob with `triage: exempt` must say why in `reason`. The registry's schema "
        "requires it, so the registry fails to load (exit 2) with the file, line and "
        "key; `knobs check` never reports this code itself. It is reserved so that it "
        "keeps this meaning."
    ),
    example=("PRIMUS_BLOCK:\n  triage: exempt    # and no `reason:`"),
    examples=example(
        INVENTORY,
        invalid={"registry.yaml": REGISTRY.replace("breaks-bitwise", "exempt")},
        valid={"registry.yaml": REGISTRY.replace("breaks-bitwise", _EXEMPT)},
    ),
    page="checks.md",
    section=KNB005_SECTION,
    family=Family.INVENTORY,
    help="Add `reason:` to the entry, or triage the knob.",
    reserved=True,
)
