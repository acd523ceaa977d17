from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule, Severity
from knobregistry.check.examples import PROFILE, example, profiles

_TUNER = (
    "  NCCL_TUNER_PLUGIN:\n    description: An external tuner.\n    role: stack\n"
    "    must_stay_unset: true\n"
)


_STACK_RULE = "    select:\n      - role: stack\n        set: deterministic\n"


KNB113 = Rule(
    code="KNB113",
    name="BitwiseLacksStackSetting",
    title="A bitwise profile does not set a catalogued determinism setting of a library the "
    "project uses.",
    description=(
        "The shipped catalogue (`knobs catalogue`) holds the stack's determinism settings: "
        "NCCL_ALGO=Ring, CUBLAS_WORKSPACE_CONFIG, ROCBLAS_DEFAULT_ATOMICS_MODE=0, "
        "torch.use_deterministic_algorithms(True) and more, each with its source. A profile "
        "of kind `bitwise` that does not give one of them its deterministic value, for a "
        "library the project uses (named in its requirements*.txt or pyproject.toml, or "
        "imported by the scanned code) on its platform, leaves that library free to choose "
        "a non-deterministic path. The platform is the one the registry's own stack "
        "settings belong to (an RCCL entry: rocm); with none, only the settings of every "
        "platform are asked for. A note: it does not fail the check."
    ),
    example=(
        "# requirements.txt names torch; the registry has NCCL_ALGO (RCCL, role stack)\n"
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        "    select: [{role: stack, set: deterministic}]\n"
        "# no ROCBLAS_DEFAULT_ATOMICS_MODE, no torch.use_deterministic_algorithms"
    ),
    examples=example(
        {**PROFILE, "requirements.txt": "triton\n"},
        invalid={"registry.yaml": profiles().replace('      PYTHONHASHSEED: "0"\n', "")},
        valid={},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Register the setting as `knobs catalogue LIBRARY` gives it (a variable under "
        "`external:` with `role: stack`, a call under `config:` with `backend: stack`) and "
        "let the profile set it, or run `knobs init` in a scratch folder and copy its entries."
    ),
    severity=Severity.NOTE,
)

KNB115 = Rule(
    code="KNB115",
    name="LauncherSetsUnsetStackSetting",
    title="A launcher script sets a stack setting that a bitwise profile unsets because it "
    "must stay unset.",
    description=(
        "The catalogue (`knobs catalogue`) marks some library settings as ones a "
        "deterministic run must leave unset: a tile or split override of a kernel "
        "(HK_BWD_DQ_KVB), an external tuner (NCCL_TUNER_PLUGIN), an override of the "
        "framework's own precision (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE). A profile of kind "
        "`bitwise` unsets them (`role: stack`, `set: deterministic`), and `knobs export` "
        "writes `unset NAME`; a launcher write that sets one again (`export X=...`, "
        "`X=... cmd`, a hook's printed `env.X=...`) undoes that for every run started "
        "through it. A write under a condition the profile's values rule out is not "
        "reported. A note: whether the profile's runs go through that launcher is for a "
        "person to say."
    ),
    example=(
        "export NCCL_TUNER_PLUGIN=libnccl-tuner.so      # launch/run.sh\n"
        "external:\n"
        "  NCCL_TUNER_PLUGIN: {role: stack, must_stay_unset: true, ...}\n"
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        "    select: [{role: stack, set: deterministic}]"
    ),
    examples=example(
        {
            **PROFILE,
            "registry.yaml": profiles(external=_TUNER) + _STACK_RULE,
        },
        invalid={"pkg/run.sh": "export NCCL_TUNER_PLUGIN=libnccl-tuner.so\n"},
        valid={"pkg/run.sh": "unset NCCL_TUNER_PLUGIN\n"},
    ),
    page="profiles.md",
    family=Family.PROFILES,
    help=(
        "Remove the write, or keep it out of the runs that must reproduce; `knobs catalogue "
        "LIBRARY` says why the setting must stay unset."
    ),
    severity=Severity.NOTE,
)
