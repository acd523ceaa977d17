from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule, Severity
from knobregistry.check.examples import PROFILE, example, profiles

_REQUIRES = (
    "import os\n\n\ndef validate(args):\n    if {}:\n"
    '        assert os.environ.get("TORCH_COMPILE_DISABLE") == "1"\n'
)


def _required(env: str) -> str:
    """A profile in deterministic mode (a Primus key), with ``env`` added."""
    external = "  TORCH_COMPILE_DISABLE:\n    description: Turns torch.compile off.\n"
    config = "  deterministic_mode:\n    backend: primus\n    description: Deterministic mode.\n"
    profile = profiles(external=external, config=config, env=env)
    return profile + "    config:\n      deterministic_mode: true\n"


KNB109 = Rule(
    code="KNB109",
    name="BitwiseMissesRequirement",
    title="A bitwise profile does not give a variable the value that code requires.",
    description=(
        "Code of the scan refuses to run unless a variable holds given values (`assert "
        "os.environ.get(env) == value`, as Primus's `validate_args_on_rocm` does for "
        "TORCH_COMPILE_DISABLE and three more in deterministic mode). A profile of kind "
        "`bitwise` that leaves the variable unset while its config turns that condition "
        "on, or sets a value the code refuses, starts a run that stops there. A "
        "requirement with no condition is the run's own set-up, left to its environment. "
        "Reported at the profile."
    ),
    example=(
        "if args.deterministic_mode:    # code of the scan\n"
        '    assert os.environ.get("TORCH_COMPILE_DISABLE") == "1"\n'
        "# a bitwise profile sets deterministic_mode: true, leaves TORCH_COMPILE_DISABLE unset"
    ),
    examples=example(
        {**PROFILE, "pkg/validate.py": _REQUIRES.format("args.deterministic_mode")},
        invalid={"registry.yaml": _required("")},
        valid={"registry.yaml": _required('      TORCH_COMPILE_DISABLE: "1"\n')},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help="Set the variable to the required value under the profile's `env`.",
)

KNB110 = Rule(
    code="KNB110",
    name="RequirementConditionUndecided",
    title="Code requires a value only under a condition the check cannot evaluate for a "
    "bitwise profile.",
    description=(
        "A requirement holds only under a test of the trainer's arguments "
        '(`if args.fp8_recipe == "mxfp8":`) that the profile\'s config does not decide. '
        "A note for a person: if the profile's runs meet the condition, they stop there "
        "unless the variable holds the required value."
    ),
    example=(
        'if args.fp8_recipe == "mxfp8":\n'
        '    assert os.environ.get("NVTE_FP8_BLOCK") == "1"\n'
        "# the bitwise profile does not set fp8_recipe"
    ),
    examples=example(
        {**PROFILE, "pkg/validate.py": _REQUIRES.format('args.fp8_recipe == "mxfp8"')},
        invalid={"registry.yaml": _required("")},
        valid={"registry.yaml": _required('      TORCH_COMPILE_DISABLE: "1"\n')},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help="Set the variable as required, or set the config key that decides the condition.",
    severity=Severity.NOTE,
)
