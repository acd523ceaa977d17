from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import PROFILE, example, profiles

KNB102 = Rule(
    code="KNB102",
    name="ProfileSetsUnknownVariable",
    title=(
        "A profile sets a variable that no scanned code reads and no `external` entry declares."
    ),
    description=(
        "A profile sets an environment variable that no code in the scan reads and no "
        "`external` entry declares: a typo, or a knob that was removed. Reported at the "
        "profile's value."
    ),
    example=(
        'profiles:\n  bitwise:\n    env:\n      PRIMUS_HC_TRITN: "0"    # a typo: no code reads it'
    ),
    examples=example(
        PROFILE,
        invalid={"registry.yaml": profiles(env='      PRIMUS_HC_TRITN: "0"\n')},
        valid={},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=("Fix the name, or declare the variable under `external` with the library that reads it."),
)
