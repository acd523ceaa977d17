"""KNB001 UnregisteredKnob: a knob the policy requires that the registry does not name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry._text.plural import counted
from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import INVENTORY, example, registry_with

if TYPE_CHECKING:
    from knobregistry.check.where import Where
    from scanner import Knob

_NEW_TRITON = 'import os\n\nNEW = os.environ.get("PRIMUS_NEW_TRITON", "1") != "0"\n'


# KNB001's section of docs/checks.md, below its heading (the site renders it there).
KNB001_SECTION = """\
A knob the policy requires (every knob under `all`; under `default-on`, knobs
whose feature is on by default) that neither `knobs` nor `external` names.
Reported at the knob's first site. The fix is the entry that registers it,
prefilled from the scan: the default its code falls back to (when every site
agrees on one), whether it is on by default, `polarity: disable` for a knob whose
on value turns its feature off, `off_value` when that is not `"0"`, the role the
scan proposes with its evidence (what the knob controls, which decides what a
profile may do with it; see [roles](profiles.md#roles)), and `triage: untriaged`.
Paste it under `knobs:`, confirm the role or write the one the code shows
(`role: kernel`), then say what it gates and triage it. A role only the name
suggests is proposed `unknown`, with the name's words as the hint: words alone
are not evidence, and no profile acts on an unknown role. (To
register many knobs at once, `knobs init -o new.yaml PATH` writes the same
entries to a new file, with `polarity` stated for every switch.)

A kernel author adds a fusion at the end of `pkg/model.py` (its flag alone, no code
yet that branches on it, so the role is `unknown`):

```python
NEW = os.environ.get("PRIMUS_NEW_TRITON", "1") != "0"
```

    pkg/model.py:9:7: KNB001 error: PRIMUS_NEW_TRITON is not registered in registry.yaml: it is on by default ("0" turns it off) and read here.
        Register it in registry.yaml under `knobs:`, then triage it:
          PRIMUS_NEW_TRITON:
            default: "1"
            default_on: true
            role:
              proposed: unknown
              reason: "the name PRIMUS_NEW_TRITON says TRITON, a hint of a kernel choice, but no code it reaches shows one: words alone are not evidence"
            triage: untriaged

    Found 1 error: 5 knobs in 3 files checked against registry.yaml (policy all).
"""  # noqa: E501

KNB001 = Rule(
    code="KNB001",
    name="UnregisteredKnob",
    title="A knob the code reads is not registered.",
    description=(
        "The scan found a knob that the registry's policy requires to be registered "
        "(every knob under policy `all`; under policy `default-on`, knobs whose feature "
        "is on by default: on by default, or a `disable` knob off by default), and "
        "neither `knobs` nor `external` in the registry names it. Reported at the knob's "
        "first site."
    ),
    example=(
        "# pkg/model.py (PRIMUS_NEW_TRITON is in neither `knobs` nor `external`)\n"
        'NEW = os.environ.get("PRIMUS_NEW_TRITON", "1") != "0"'
    ),
    examples=example(
        INVENTORY,
        invalid={"pkg/new.py": _NEW_TRITON},
        valid={"pkg/new.py": _NEW_TRITON, "registry.yaml": registry_with("PRIMUS_NEW_TRITON")},
    ),
    page="checks.md",
    section=KNB001_SECTION,
    family=Family.INVENTORY,
    help=(
        "Add the YAML entry that the fix shows under `knobs:` in the registry (it is "
        "prefilled from the scan and starts `untriaged`), then fill in what it gates "
        "and triage it."
    ),
)


def _read_at(knob: Knob) -> str:
    others = len(knob.sites) - 1
    if others == 0:
        return "read here"
    return f"read here and at {counted(others, 'more site')}"


def unregistered(where: Where, knob: Knob) -> Diagnostic:
    """KNB001: a knob the policy requires, in neither `knobs` nor `external`."""
    from knobregistry.registry.yaml_format import entry_yaml, gate_summary

    site = knob.sites[0]
    registry = where.registry_file
    fix = "\n".join(
        [f"Register it in {registry} under `knobs:`, then triage it:", *entry_yaml(knob, "  ")]
    )
    message = (
        f"{knob.name} is not registered in {registry}: it is {gate_summary(knob)} "
        f"and {_read_at(knob)}."
    )
    return KNB001.diagnostic(
        where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
    )
