from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import NCCL_ALGO, PROFILE, example, profiles

_LAUNCHER = '[ "$PRIMUS_DETERMINISTIC" = 1 ] && export NCCL_ALGO=Ring\n'


def _deterministic(algo: str) -> str:
    """A profile that sets the launcher's switch, and NCCL_ALGO to ``algo``."""
    switch = "  PRIMUS_DETERMINISTIC:\n    default_on: false\n    triage: untriaged\n"
    env = f'      PRIMUS_DETERMINISTIC: "1"\n      NCCL_ALGO: {algo}\n'
    return profiles(knobs=switch, external=NCCL_ALGO, env=env)


KNB106 = Rule(
    code="KNB106",
    name="ProfileContradictsLauncher",
    title="A profile sets a variable to one value while the switch it also sets makes the "
    "launcher set it to another.",
    description=(
        "A launcher script (a shell script or a hook that prints `env.NAME=VALUE`) writes a "
        "variable under a condition on another one: `PRIMUS_DETERMINISTIC=1` implies "
        "`NCCL_ALGO=Ring`. A profile that sets the switch and gives the implied variable a "
        "different value contradicts the launcher: which value the run gets depends on which "
        "is applied last. Reported at the profile's value, naming the launcher's line."
    ),
    example=(
        '# launcher: [ "$PRIMUS_DETERMINISTIC" = 1 ] && export NCCL_ALGO=Ring\n'
        "profiles:\n"
        "  bitwise:\n"
        "    env:\n"
        '      PRIMUS_DETERMINISTIC: "1"\n'
        "      NCCL_ALGO: Tree"
    ),
    examples=example(
        {**PROFILE, "pkg/launch.sh": _LAUNCHER},
        invalid={"registry.yaml": _deterministic("Tree")},
        valid={"registry.yaml": _deterministic("Ring")},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Give the variable the launcher's value in the profile (or leave it to the launcher), "
        "or stop setting the switch that implies it."
    ),
)
