"""KNB004 ConflictingSites: sites of one knob that disagree on its default or off value."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import INVENTORY, MODEL, example

if TYPE_CHECKING:
    from knobregistry.check.where import Where
    from scanner import Knob, Site

_OTHER = MODEL.replace("HC =", "FAST =")


KNB004 = Rule(
    code="KNB004",
    name="ConflictingSites",
    title="A knob is read with conflicting defaults.",
    description=(
        "Sites of one knob disagree: one is on by default and another off, they fall "
        "back to different values, or no single value turns every site off. No profile "
        "can then switch the knob off everywhere with one value. Reported for knobs that "
        "are registered or that the policy requires, at the first site that disagrees "
        "with the registry (or the first site); never for a launch fact."
    ),
    example=(
        'HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"       # pkg/model.py\n'
        'FAST = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"    # pkg/other.py'
    ),
    examples=example(
        INVENTORY,
        invalid={"pkg/other.py": _OTHER.replace('"1") != "0"', '"0") == "1"')},
        valid={"pkg/other.py": _OTHER},
    ),
    page="checks.md",
    family=Family.INVENTORY,
    help=(
        "Make every site read the variable the same way: one helper function, or one "
        "module constant for the default. In code you do not own, record how each site "
        "reads it under the entry's `sites` (the fix shows them; `knobs init` writes them)."
    ),
)


def conflicting(where: Where, knob: Knob, site: Site) -> Diagnostic:
    """KNB004: sites of one knob that disagree, reported at ``site``."""
    from knobregistry.registry.site_reads import sites_yaml

    reason = _rewrite_paths(knob.conflict_reason or "its sites disagree", knob, where)
    message = f"{knob.name} is read with conflicting defaults: {reason}."
    fix = "\n".join(
        [
            "Make every site read it the same way (one helper function, or one module "
            "constant for the default), then run `knobs check` again. In code you do not "
            f"own, accept the sites as they are: record how each reads it in "
            f"{where.registry_file} under knobs.{knob.name}, and the check holds the code to it:",
            *(f"  {text}" for text in sites_yaml(knob)),
        ]
    )
    return KNB004.diagnostic(
        where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
    )


def _rewrite_paths(text: str, knob: Knob, where: Where) -> str:
    """The scanner names sites relative to the registry's folder; show them as elsewhere."""
    renames = {s.path: where.show(s.path) for s in knob.sites}
    renames = {old: new for old, new in renames.items() if old != new}
    if not renames:
        return text
    alternatives = "|".join(re.escape(p) for p in sorted(renames, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w/.-])({alternatives})(?=:\d)")
    return pattern.sub(lambda m: renames[m.group(1)], text)
