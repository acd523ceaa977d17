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


# KNB004's section of docs/checks.md, below its heading (the site renders it there).
KNB004_SECTION = """\
Sites of one knob that disagree: one on by default and another off, different
fallback values, or no single value that turns every site off. No profile can
then switch the knob off everywhere with one value. Reported for knobs that are
registered or that the policy requires, at the first site that disagrees with
the registry (or at the first site).

A second module reads the same variable the other way round:

```python
# pkg/other.py
import os

FAST = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"
```

    pkg/other.py:3:8: KNB004 error: PRIMUS_HC_TRITON is read with conflicting defaults: on by default at pkg/model.py:5 but off by default at pkg/other.py:3.
        Make every site read it the same way (one helper function, or one module constant for the default), then run `knobs check` again. In code you do not own, accept the sites as they are: record how each reads it in registry.yaml under knobs.PRIMUS_HC_TRITON, and the check holds the code to it:
          sites:
            - {path: "pkg/model.py", function: "<module>", default: "1", default_on: true, off_value: "0"}
            - {path: "pkg/other.py", function: "<module>", default: "0", default_on: false, off_value: "0"}

    Found 1 error: 4 knobs in 4 files checked against registry.yaml (policy all).

In code you do not own (megatron-core, torch, a vendored library) you cannot make
the sites agree. Record them instead: the entry's `sites` lists how each site
reads the knob (its file, its scope, its default, whether it is on by default and
the value that turns it off), as the fix above shows and as `knobs init` writes it
for every knob whose sites disagree ([Registry format](registry.md#sites-that-disagree)).
With `sites`, the check reports no conflict while the code reads the knob exactly
as recorded, and fails (KNB003) when a recorded site changes, when one is gone,
or when a new site reads the knob another way.
"""  # noqa: E501

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
    section=KNB004_SECTION,
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
