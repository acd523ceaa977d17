"""KNB008 UndecidedGate: a knob whose gate the scanner could not decide and no person has."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from knobregistry._text.plural import counted
from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import INVENTORY, example, registry_with
from scanner import GateKind

if TYPE_CHECKING:
    from knobregistry.check.where import Where
    from scanner import Knob, Site

_FLAGS = (
    "import os\n\nfrom toolkit import str2bool\n\n"
    'ADAM = str2bool(os.environ.get("PRIMUS_FUSED_ADAM", "1"))\n'
)


# KNB008's section of docs/checks.md, below its heading (the site renders it there).
KNB008_SECTION = """\
A knob whose gate the scanner could not decide, and that the registry does not
decide either: the code hands the value to a function the scanner does not follow
(one imported from outside the scan, say), or a launcher only exports it for
another program, so nothing tells whether the knob is on by default. The knob is
never taken as on, off or a value: under either policy it must be registered,
after a person has read the code, and no profile rule sets it meanwhile
(`knobs export` leaves it as the code has it and names it where a rule would
set it, and `knobs export --strict` stops on it; see
[undecided knobs](profiles.md#undecided-knobs)); where only its state when unset
is computed by the run and one value turns every site off, a `set: off` rule
writes that value, which turns it off whatever that state is. Reported at its first undecided
site, with the scanner's reason. The fix is the entry to fill in, as `knobs init`
writes it: `default_on: null` and the reason under `undecided`. Read the code,
write what you found (`true`, `false`, or `null` for a value), remove
`undecided`, and triage it. Once the knob is registered with `undecided` (as
`knobs init` writes it), the finding is a **note**: the registry says what the
code says, so the check passes (code you do not own can then be adopted as it
is), and the note stays while `undecided` does; no profile sets the knob
meanwhile. A knob registered without `undecided` is your decision, and the check
keeps to it.

```python
# pkg/flags.py
import os

from toolkit import str2bool

ADAM = str2bool(os.environ.get("PRIMUS_FUSED_ADAM", "1"))
```

    pkg/flags.py:5:17: KNB008 error: PRIMUS_FUSED_ADAM is read here, but the scanner cannot decide what its gate does: it goes through str2bool(), which is not followed. It is not registered in registry.yaml, so nothing says whether it is on by default.
        Read the code (`knobs explain PRIMUS_FUSED_ADAM`), then register it in registry.yaml under `knobs:` with what you found, and triage it:
          PRIMUS_FUSED_ADAM:
            default: "1"
            default_on: null
            undecided: "it goes through str2bool(), which is not followed (pkg/flags.py:5)"
            role:
              proposed: unknown
              reason: "the name PRIMUS_FUSED_ADAM says FUSED, a hint of a kernel choice, but no code it reaches shows one: words alone are not evidence"
            triage: untriaged

    Found 1 error: 5 knobs in 4 files checked against registry.yaml (policy all).
"""  # noqa: E501

KNB008 = Rule(
    code="KNB008",
    name="UndecidedGate",
    title="A knob whose gate the scanner could not decide is not decided in the registry.",
    description=(
        "The scanner could not tell what the code does with a knob's value (it goes "
        "through a function it does not follow, for example), so nothing says whether "
        "the knob is on by default. It is never taken as off or as a value: under either "
        "policy it must be registered, after a person has read the code. `knobs init` "
        "registers such a knob with `default_on: null` and the scanner's reason under "
        "`undecided`, which no profile acts on; the finding stays until a person has "
        "decided. Reported at its first undecided site, with the reason."
    ),
    example=(
        'from toolkit import str2bool\n\nADAM = str2bool(os.environ.get("PRIMUS_FUSED_ADAM", "1"))'
    ),
    examples=example(
        INVENTORY,
        invalid={"pkg/flags.py": _FLAGS},
        valid={"pkg/flags.py": _FLAGS, "registry.yaml": registry_with("PRIMUS_FUSED_ADAM")},
    ),
    page="checks.md",
    section=KNB008_SECTION,
    family=Family.INVENTORY,
    help=(
        "Read the code around the site (`knobs explain KNOB`), then register the knob "
        "under `knobs:` with `default_on` as you found it and its triage (and remove "
        "`undecided` where `knobs init` wrote it)."
    ),
)


def _undecided_site(knob: Knob) -> tuple[Site, str]:
    """The first site whose gate is undecided, and how many more sites read the knob."""
    site = next((s for s in knob.sites if s.gate.kind is GateKind.UNKNOWN), knob.sites[0])
    others = len(knob.sites) - 1
    return site, f" (and at {counted(others, 'more site')})" if others else ""


def undecided(where: Where, knob: Knob) -> Diagnostic:
    """KNB008: a knob whose gate the scanner could not decide, in neither `knobs` nor
    `external`: never taken as off or as a value; a person reads the code and registers it."""
    from knobregistry.registry.feature import undecided_reason
    from knobregistry.registry.yaml_format import entry_yaml

    site, more = _undecided_site(knob)
    registry = where.registry_file
    message = (
        f"{knob.name} is read here{more}, but the scanner cannot decide what its gate does: "
        f"{undecided_reason(knob)}. It is not registered in {registry}, so nothing says "
        "whether it is on by default."
    )
    fix = "\n".join(
        [
            f"Read the code (`knobs explain {knob.name}`), then register it in {registry} "
            "under `knobs:` with what you found, and triage it:",
            *entry_yaml(knob, "  "),
        ]
    )
    return KNB008.diagnostic(
        where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
    )


def still_undecided(where: Where, knob: Knob, reason: str) -> Diagnostic:
    """KNB008 as a note: a knob registered as undecided (`undecided:` in its entry, as `knobs
    init` writes it): the registry says what the code says, so the check passes; no profile
    sets it until a person has decided its gate."""
    site, more = _undecided_site(knob)
    registry = where.registry_file
    from knobregistry.registry.feature import computed_off, split_on_value

    on, off = split_on_value(knob), computed_off(knob)
    if on is not None:
        until = (
            f"No profile turns it off until someone decides (a `set: on` rule writes {on!r}, "
            "which turns every site on)."
        )
    elif off is not None:
        until = (
            f"A `set: off` rule writes {off!r}, which turns it off whatever the run computes "
            "unset; no other rule sets it until someone decides."
        )
    else:
        until = "No profile sets it until someone decides."
    message = (
        f"{knob.name} is read here{more}, and {registry} registers its gate as undecided: "
        f"{reason}. {until}"
    )
    fix = (
        f"Read the code (`knobs explain {knob.name}`), then in knobs.{knob.name} write "
        "`default_on` (true or false for a switch, null for a value) and remove `undecided`."
    )
    found = KNB008.diagnostic(
        where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
    )
    return replace(found, severity=Severity.NOTE)
