from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule, Severity
from knobregistry.check.examples import DATACLASS, PROFILE, example, profiles

# Stand-ins for megatron-core and torchtitan, found first on PYTHONPATH.
_MEGATRON = {
    "megatron/__init__.py": "",
    "megatron/core/__init__.py": "",
    "megatron/core/model_parallel_config.py": (
        DATACLASS + "ModelParallelConfig:\n    deterministic_mode: bool = False\n"
    ),
}


def _megatron_key(name: str) -> str:
    return f"  {name}:\n    backend: megatron\n    description: Deterministic kernels.\n"


KNB104 = Rule(
    code="KNB104",
    name="UnknownMegatronConfigKey",
    title=(
        "A config key declared `backend: megatron` is no field of megatron-core's config classes."
    ),
    description=(
        "A trainer-config key declared `backend: megatron` is not a field of megatron-core's "
        "config dataclasses (checked when megatron-core is installed): the overlay would set "
        "a key Megatron ignores or rejects."
    ),
    example=(
        "config:\n"
        "  deterministic_mod:    # no field of megatron-core's config classes\n"
        "    backend: megatron"
    ),
    examples=example(
        {**PROFILE, **_MEGATRON},
        invalid={"registry.yaml": profiles(config=_megatron_key("deterministic_mod"))},
        valid={"registry.yaml": profiles(config=_megatron_key("deterministic_mode"))},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Fix the name; mark a Megatron command-line argument with `argument: --name`; or "
        "declare the key's real backend (primus, for keys Primus adds)."
    ),
)

KNB105 = Rule(
    code="KNB105",
    name="MegatronKeysNotChecked",
    title="megatron-core is not installed, so the megatron config keys were not checked.",
    description=(
        "megatron-core could not be imported, so the config keys declared `backend: megatron`"
        " were not checked against its dataclasses. A note: it does not fail the check."
    ),
    example=(
        "config:\n  deterministic_mode:\n    backend: megatron    # megatron-core is not installed"
    ),
    examples=example(
        {**PROFILE, "registry.yaml": profiles(config=_megatron_key("deterministic_mode"))},
        invalid={"megatron/__init__.py": ""},
        valid=_MEGATRON,
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Install megatron-core in the environment that runs `knobs check` (pip install "
        "megatron-core) to check them."
    ),
    severity=Severity.NOTE,
)
