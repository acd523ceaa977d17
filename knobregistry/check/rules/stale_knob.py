"""KNB002 StaleKnob: a registered knob that no code in the scan scope reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import INVENTORY, example, registry_with

if TYPE_CHECKING:
    from knobregistry.check.where import Where

# KNB002's section of docs/checks.md, below its heading (the site renders it there).
KNB002_SECTION = """\
A registered knob that no file in the scope reads: the gate was removed, the
code moved out of `scan.paths`, or `scan.match` does not select the name.
Reported at the entry's line in the registry. Not checked when PATHs are given
on the command line. Remove the entry, widen the scope, or move the entry under
`external` if only a library reads the variable.

The `ROPE = env_flag("PRIMUS_ROPE_TRITON")` line is deleted:

    registry.yaml:15:3: KNB002 error: PRIMUS_ROPE_TRITON is registered, but no code in the scan scope reads it.
        Remove the entry if the gate is gone; if the code moved, widen scan.paths; if only a library reads it, move the entry under `external`.

    Found 1 error: 3 knobs in 3 files checked against registry.yaml (policy all).

A registered name outside `scan.match` gets its own message:

    registry.yaml:14:3: KNB002 error: NCCL_ALGO is registered, but scan.match ("PRIMUS_*") does not select it, so no scan can find it.
        Add a pattern that matches it to scan.match, or move the entry under `external` if only a library reads it.
"""  # noqa: E501

KNB002 = Rule(
    code="KNB002",
    name="StaleKnob",
    title="A registered knob is read by no code in the scan scope.",
    description=(
        "The registry lists a knob under `knobs`, but no file in the scan scope reads "
        "it any more, or the scope's `match` patterns do not select it. Reported at the "
        "knob's entry in the registry. Not checked when paths are given on the command "
        "line, since the rest of the scope was not scanned."
    ),
    example=(
        "# registry.yaml lists PRIMUS_ROPE_TRITON under `knobs`; no code in scan.paths\n"
        "# reads it any more"
    ),
    examples=example(
        INVENTORY,
        invalid={"registry.yaml": registry_with("PRIMUS_ROPE_TRITON")},
        valid={},
    ),
    page="checks.md",
    section=KNB002_SECTION,
    family=Family.INVENTORY,
    help=(
        "Remove the entry if the gate is gone; widen `scan.paths` if the code moved; "
        "move it under `external` if only a library reads it."
    ),
)


def stale(where: Where, name: str, unmatched: bool) -> Diagnostic:
    """KNB002: a registered knob that the scan did not find."""
    from knobregistry.registry.yaml_format import yaml_string

    line, column = where.registry_line("knobs", name)
    patterns = ", ".join(yaml_string(p) for p in where.registry.scan.match)
    if unmatched:
        message = (
            f"{name} is registered, but scan.match ({patterns}) does not select it, "
            "so no scan can find it."
        )
        fix = (
            "Add a pattern that matches it to scan.match, or move the entry under "
            "`external` if only a library reads it."
        )
    else:
        message = f"{name} is registered, but no code in the scan scope reads it."
        fix = (
            "Remove the entry if the gate is gone; if the code moved, widen scan.paths; "
            "if only a library reads it, move the entry under `external`."
        )
    return KNB002.diagnostic(where.registry_file, line, column, message, fix=fix, knob=name)
