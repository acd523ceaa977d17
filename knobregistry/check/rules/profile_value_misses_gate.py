from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import PROFILE, example, profiles

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
    family=Family.PROFILES,
    help=(
        "Write a value the gate treats as intended (the message lists them), or give the knob "
        "its `off_value` / `on_value` in the registry."
    ),
)
