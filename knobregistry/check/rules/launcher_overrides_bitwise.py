from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule, Severity
from knobregistry.check.examples import PROFILE, entry, example, profiles

_FUSED = 'import os\n\nFUSED = os.environ.get("DEMO_FUSED", "1") != "0"\n'


KNB114 = Rule(
    code="KNB114",
    name="LauncherOverridesBitwise",
    title="A launcher script sets a registered knob to a value that a bitwise profile contradicts.",
    description=(
        "A launcher write (`export X=1`, `X=1 cmd`, `env X=1`, `docker run -e X=1`, "
        "`srun --export=X=1`, a hook's printed `env.X=1`) sets a registered knob to a "
        "value that every gate of the code reads as on while a profile of kind `bitwise` "
        "sets it off (or the other way round). A run started through that launcher gets "
        "the launcher's value, not the profile's. A value the launcher computes when it "
        "runs (`$(nproc)`, `${BASE}/x`) is never judged: it is not known. A write under "
        "conditions the profile sets all of is KNB106's. A note: whether the profile's "
        "runs go through that launcher is for a person to say."
    ),
    example=(
        "export DEMO_FUSED=1            # launch/run.sh\n"
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        '    env: {DEMO_FUSED: "0"}'
    ),
    examples=example(
        {
            **PROFILE,
            "registry.yaml": profiles(knobs=entry("DEMO_FUSED"), env='      DEMO_FUSED: "0"\n'),
            "pkg/fused.py": _FUSED,
        },
        invalid={"pkg/run.sh": "export DEMO_FUSED=1\n"},
        valid={"pkg/run.sh": "export DEMO_FUSED=${DEMO_FUSED:-1}\n"},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Make the launcher keep a value already set (`export X=${X:-1}`), or remove the "
        "write, or do not start the profile's runs through that launcher."
    ),
    severity=Severity.NOTE,
)
