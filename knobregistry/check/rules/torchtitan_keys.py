from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule, Severity
from knobregistry.check.examples import DATACLASS, PROFILE, example, profiles

_TORCHTITAN = {
    "torchtitan/__init__.py": "",
    "torchtitan/config/__init__.py": "",
    "torchtitan/config/job_config.py": (
        DATACLASS + "Debug:\n    seed: int | None = None\n\n\n"
        "@dataclass\nclass JobConfig:\n    debug: Debug = field(default_factory=Debug)\n"
    ),
}


def _titan_key(name: str) -> str:
    return f"  {name}:\n    backend: torchtitan\n    description: TorchTitan's seed.\n"


KNB107 = Rule(
    code="KNB107",
    name="UnknownTorchTitanConfigKey",
    title="A config key declared `backend: torchtitan` is no field of torchtitan's job config.",
    description=(
        "A trainer-config key declared `backend: torchtitan` is not a path of fields through "
        "torchtitan's job-config dataclasses (checked when torchtitan is installed): the "
        "overlay would set a key TorchTitan rejects."
    ),
    example=(
        "config:\n"
        "  debug.sead:    # no field path of torchtitan's job config\n"
        "    backend: torchtitan"
    ),
    examples=example(
        {**PROFILE, **_TORCHTITAN},
        invalid={"registry.yaml": profiles(config=_titan_key("debug.sead"))},
        valid={"registry.yaml": profiles(config=_titan_key("debug.seed"))},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Fix the name (a dotted path such as debug.seed); if Primus adds the key, declare "
        "`backend: primus`."
    ),
)

KNB108 = Rule(
    code="KNB108",
    name="TorchTitanKeysNotChecked",
    title="torchtitan is not installed, so the torchtitan config keys were not checked.",
    description=(
        "torchtitan could not be imported, so the config keys declared `backend: torchtitan` "
        "were not checked against its job config. A note: it does not fail the check."
    ),
    example=("config:\n  debug.seed:\n    backend: torchtitan    # torchtitan is not installed"),
    examples=example(
        {**PROFILE, "registry.yaml": profiles(config=_titan_key("debug.seed"))},
        invalid={"torchtitan/__init__.py": ""},
        valid=_TORCHTITAN,
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Install torchtitan in the environment that runs `knobs check` (pip install "
        "torchtitan, on Python 3.11 or newer) to check them."
    ),
    severity=Severity.NOTE,
)
