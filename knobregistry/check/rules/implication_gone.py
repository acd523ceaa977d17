from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import NCCL_ALGO, PROFILE, example, profiles

_IMPLIED = NCCL_ALGO + '    implied_by: {PRIMUS_DETERMINISTIC: "1"}\n'


KNB111 = Rule(
    code="KNB111",
    name="ImplicationGone",
    title="The registry says a launcher sets a variable under a condition, and no scanned "
    "launcher script does.",
    description=(
        "An `external` entry's `implied_by` records that a launcher script sets the variable "
        "when others hold given values (`NCCL_ALGO` when `PRIMUS_DETERMINISTIC=1`). When no "
        "write of the scan does so any more (the hook changed, or moved out of the scope), "
        "profiles that relied on the launcher no longer get the value. Reported at "
        "`implied_by`; skipped when paths on the command line narrow the scan."
    ),
    example=(
        "external:\n"
        "  NCCL_ALGO:\n"
        '    implied_by: {PRIMUS_DETERMINISTIC: "1"}\n'
        "# no scanned launcher script sets NCCL_ALGO any more"
    ),
    examples=example(
        PROFILE,
        invalid={"registry.yaml": profiles(external=_IMPLIED)},
        valid={"registry.yaml": profiles(external=_IMPLIED.split("    implied_by")[0])},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Restate the value in the profiles that need it and drop `implied_by`, or put the "
        "launcher script back in the scan's scope."
    ),
)
