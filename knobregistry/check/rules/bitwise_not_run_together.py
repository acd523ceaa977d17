from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule, Severity
from knobregistry.check.examples import PROFILE, entry, example, profiles

_TOYS = (
    'import os\n\nA = os.environ.get("TOY_A", "1") != "0"\n'
    'B = os.environ.get("TOY_B", "1") != "0"\n'
)


_REPRODUCIBLE_TOYS = entry("TOY_A", "reproducible") + entry("TOY_B", "reproducible")


KNB112 = Rule(
    code="KNB112",
    name="BitwiseNotRunTogether",
    title="A bitwise profile leaves on knobs judged reproducible one at a time, and no "
    "recorded run had it as a whole.",
    description=(
        "Two knobs that are each reproducible alone can break reproducibility together (two "
        "reductions that each keep a fixed order alone, and race when both are on). A "
        "profile of kind `bitwise` that leaves on two or more knobs triaged `reproducible` "
        "is assembled from single-knob verdicts unless the registry records a run of it as "
        "a whole: its own `verified` run (written by `knobs triage --search fastest-bitwise "
        "--record`), or an evidence record of a triage started from it (`profile:` names "
        "it; such a triage runs the profile itself as its baseline). A warning: it does "
        "not fail the check."
    ),
    example=(
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        '    select: [{default_on: true, triage_not: reproducible, set: "off"}]\n'
        "# TOY_A and TOY_B are triaged reproducible, each alone; no run had both on"
    ),
    examples=example(
        {**PROFILE, "pkg/toy.py": _TOYS},
        invalid={"registry.yaml": profiles(knobs=_REPRODUCIBLE_TOYS)},
        valid={"registry.yaml": profiles(knobs=_REPRODUCIBLE_TOYS, env='      TOY_B: "0"\n')},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Run `knobs triage --profile NAME --record -- COMMAND` (its baseline runs the profile "
        "as a whole), or `--search fastest-bitwise --record` to find and verify the fastest "
        "combination."
    ),
    severity=Severity.WARNING,
)
