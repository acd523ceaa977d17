"""KNB103 ProfileValueMissesGate: a profile value that the scanned gate does not treat as the
state it is meant to set (`"false"` on a gate that only tests `!= "0"` turns nothing off).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import PROFILE, example, profiles
from knobregistry.check.profile_where import ProfileWhere, gate_sites, quote

if TYPE_CHECKING:
    from knobregistry.profiles import Intent, ResolvedProfile

# KNB103's section of docs/profiles.md, below its heading (the site renders it there).
KNB103_SECTION = """\
A value is meant to turn a gate off (a `set: "off"` rule, or an off-like value
by convention: `0 false no off ""`) or on (`set: "on"`, or `1 true yes on`). The
scanner probes each gate with these values; when the gate does not treat the
profile's value as intended, the profile does not do what it says. `"false"` on
a gate written `os.environ.get(N, "1") != "0"` turns nothing off.

```
registry.yaml:26:7: KNB103 error: profile 'bitwise' sets DEMO_ATTN_TRITON to "false" to turn it off (profiles.bitwise.env.DEMO_ATTN_TRITON), but the gate at src/gates.py:5:12 does not treat "false" as off; values that turn it off there: "0".
    write `DEMO_ATTN_TRITON: "0"` under profiles.bitwise.env.
```

For a value a select rule wrote, the fix is the knob's `off_value` / `on_value`
in the registry.

Sites that test one value with opposite senses (`!= "none"` in one file, `== "none"`
in another) disagree on what "off" means; where the scan followed that value through
every site's branches and made it the knob's own off value (`knobs explain` shows the
chain), a site that reads it as on is not a miss: its "on" is its test's, not the
kernel's.
"""  # noqa: E501

KNB103 = Rule(
    code="KNB103",
    name="ProfileValueMissesGate",
    title="A profile value does not put the scanned gate in the state it is meant to.",
    description=(
        "The value a profile gives a knob is not one the scanned gate treats as the intended "
        'state, for example "false" on a gate that only tests `!= "0"`, which turns nothing '
        "off."
    ),
    example=(
        '# the gate: os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n'
        "profiles:\n"
        "  bitwise:\n"
        "    env:\n"
        '      PRIMUS_HC_TRITON: "false"    # turns nothing off'
    ),
    examples=example(
        PROFILE,
        invalid={"registry.yaml": profiles().replace('TRITON: "0"', 'TRITON: "false"')},
        valid={},
    ),
    page="profiles.md",
    section=KNB103_SECTION,
    family=Family.PROFILES,
    help=(
        "Write a value the gate treats as intended (the message lists them), or give the knob "
        "its `off_value` / `on_value` in the registry."
    ),
)


def gate_mismatches(where: ProfileWhere, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
    from knobregistry.profiles import Intent

    for name, value in resolved.env.items():
        source = resolved.sources[name]
        intent = resolved.gate_intent(name)
        if source.profile != resolved.name or intent is None:
            continue  # a parent's value is reported on the parent
        gates = gate_sites(where, name)
        if intent is Intent.OFF and _tied_off(where, name, value):
            continue
        wanted = [s.gate.off_values if intent is Intent.OFF else s.gate.on_values for s in gates]
        bad = [s for s, values in zip(gates, wanted, strict=True) if value not in values]
        if not bad:
            continue
        state = intent.value
        first = bad[0]
        good = first.gate.off_values if intent is Intent.OFF else first.gate.on_values
        shown = ", ".join(quote(v) for v in good) or "none: only unsetting the variable does"
        sites = f" (and {len(bad) - 1} more sites)" if len(bad) > 1 else ""
        message = (
            f"profile '{resolved.name}' sets {name} to {quote(value)} to turn it {state} "
            f"({source}), but the gate at {where.site(first)}{sites} does not treat "
            f"{quote(value)} as {state}; values that turn it {state} there: {shown}."
        )
        common = [v for v in good if all(v in values for values in wanted)]
        yield where.diagnostic(
            KNB103,
            source.key_path,
            message,
            _mismatch_fix(where, resolved, name, intent, common),
            name,
        )


def _tied_off(where: ProfileWhere, name: str, value: str) -> bool:
    """Whether the scan made ``value`` the knob's own off value though a site reads it
    otherwise: its branches, followed with that value, tie every site (scanner.split_off)."""
    knob = where.scan.knob(name)
    return knob is not None and knob.off_value == value


def _mismatch_fix(
    where: ProfileWhere, resolved: ResolvedProfile, name: str, intent: Intent, common: list[str]
) -> str:
    from knobregistry.profiles import Intent

    if not common:
        return (
            f"no single value turns every site of {name} {intent.value}; make the gates in "
            "the code agree, or unset the variable with a `set: default` rule."
        )
    source = resolved.sources[name]
    if source.action is None:
        return f"write `{name}: {quote(common[0])}` under profiles.{resolved.name}.env."
    field = "off_value" if intent is Intent.OFF else "on_value"
    if name in where.registry.knobs:
        return f"set `{field}: {quote(common[0])}` in knobs.{name}, which {source} then writes."
    return f"register {name} under `knobs` with `{field}: {quote(common[0])}`."
