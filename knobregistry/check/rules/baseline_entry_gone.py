from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import INVENTORY, example


def _baseline(finding: str) -> str:
    return '{\n  "version": 1,\n  "findings": [' + finding + "]\n}\n"


_GONE = (
    '\n    {"code": "KNB001", "knob": "PRIMUS_NEW_TRITON", "path": "pkg/new.py", "count": 1}\n  '
)


KNB203 = Rule(
    code="KNB203",
    name="BaselineEntryGone",
    title="The baseline lists a finding that is gone.",
    description=(
        "`knobs check --baseline FILE` hides the findings listed in FILE. A listed finding "
        "that the check no longer reports has been paid off, and the baseline must shrink, "
        "or it would hide the same finding if it came back. Not checked when paths on the "
        "command line narrow the scan."
    ),
    example=(
        "# knobs-baseline.json accepts KNB001 for PRIMUS_NEW_TRITON in pkg/model.py;\n"
        "# the knob has since been registered"
    ),
    examples=example(
        INVENTORY,
        invalid={"knobs-baseline.json": _baseline(_GONE)},
        valid={"knobs-baseline.json": _baseline("")},
        arguments=("--baseline", "knobs-baseline.json"),
    ),
    page="waivers.md",
    family=Family.BASELINE,
    help=(
        "Rewrite the baseline without it: knobs check --baseline FILE --write-baseline FILE "
        "(a baseline may always shrink)."
    ),
)
