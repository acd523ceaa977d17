"""The KNB1xx codes: what `knobs check` holds profiles to. Codes never change meaning."""

from __future__ import annotations

from knobregistry.check.rules import Rule
from knobregistry.diagnostics import Severity

BITWISE_LEAVES_ON = Rule(
    code="KNB101",
    name="BitwiseLeavesKnobOn",
    title="A bitwise profile leaves on a default-on knob that is not triaged reproducible.",
    description=(
        "A profile of kind `bitwise` promises a bitwise-reproducible run, yet leaves on a "
        "feature that is on by default (a knob on by default, or a `disable` knob off by "
        "default) whose knob is not triaged `reproducible`: the hole a newly added fusion "
        "opens. Reported at the profile in the registry."
    ),
    help=(
        "Set the knob to the value that turns its feature off in the profile (a `disable` "
        "knob's on value), or add a select rule that covers it (default_on: true, "
        "triage_not: reproducible, set: off); or triage it."
    ),
)
UNKNOWN_VARIABLE = Rule(
    code="KNB102",
    name="ProfileSetsUnknownVariable",
    title="A profile sets a variable that no scanned code reads and no `external` entry declares.",
    description=(
        "A profile sets an environment variable that no code in the scan reads and no "
        "`external` entry declares: a typo, or a knob that was removed. Reported at the "
        "profile's value."
    ),
    help="Fix the name, or declare the variable under `external` with the library that reads it.",
)
GATE_MISMATCH = Rule(
    code="KNB103",
    name="ProfileValueMissesGate",
    title="A profile value does not put the scanned gate in the state it is meant to.",
    description=(
        "The value a profile gives a knob is not one the scanned gate treats as the intended "
        'state, for example "false" on a gate that only tests `!= "0"`, which turns nothing '
        "off."
    ),
    help=(
        "Write a value the gate treats as intended (the message lists them), or give the knob "
        "its `off_value` / `on_value` in the registry."
    ),
)
UNKNOWN_MEGATRON_KEY = Rule(
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
    help=(
        "Fix the name; mark a Megatron command-line argument with `argument: --name`; or declare "
        "the key's real backend (primus, for keys Primus adds)."
    ),
)
MEGATRON_NOT_CHECKED = Rule(
    code="KNB105",
    name="MegatronKeysNotChecked",
    title="megatron-core is not installed, so the megatron config keys were not checked.",
    description=(
        "megatron-core could not be imported, so the config keys declared `backend: megatron`"
        " were not checked against its dataclasses. A note: it does not fail the check."
    ),
    help=(
        "Install megatron-core in the environment that runs `knobs check` (pip install "
        "megatron-core) to check them."
    ),
    severity=Severity.NOTE,
)

CONTRADICTS_LAUNCHER = Rule(
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
    help=(
        "Give the variable the launcher's value in the profile (or leave it to the launcher), "
        "or stop setting the switch that implies it."
    ),
)

UNKNOWN_TORCHTITAN_KEY = Rule(
    code="KNB107",
    name="UnknownTorchTitanConfigKey",
    title="A config key declared `backend: torchtitan` is no field of torchtitan's job config.",
    description=(
        "A trainer-config key declared `backend: torchtitan` is not a path of fields through "
        "torchtitan's job-config dataclasses (checked when torchtitan is installed): the "
        "overlay would set a key TorchTitan rejects."
    ),
    help=(
        "Fix the name (a dotted path such as debug.seed); if Primus adds the key, declare "
        "`backend: primus`."
    ),
)
TORCHTITAN_NOT_CHECKED = Rule(
    code="KNB108",
    name="TorchTitanKeysNotChecked",
    title="torchtitan is not installed, so the torchtitan config keys were not checked.",
    description=(
        "torchtitan could not be imported, so the config keys declared `backend: torchtitan` "
        "were not checked against its job config. A note: it does not fail the check."
    ),
    help=(
        "Install torchtitan in the environment that runs `knobs check` (pip install "
        "'knobregistry[torchtitan]') to check them."
    ),
    severity=Severity.NOTE,
)
TORCHTITAN_RULES: tuple[Rule, ...] = (UNKNOWN_TORCHTITAN_KEY, TORCHTITAN_NOT_CHECKED)
MISSES_REQUIREMENT = Rule(
    code="KNB109",
    name="BitwiseMissesRequirement",
    title="A bitwise profile does not give a variable the value that code requires.",
    description=(
        "Code of the scan refuses to run unless a variable holds given values (`assert "
        "os.environ.get(env) == value`, as Primus's `validate_args_on_rocm` does for "
        "TORCH_COMPILE_DISABLE and three more in deterministic mode). A profile of kind "
        "`bitwise` that leaves the variable unset or sets another value starts a run that "
        "stops there. Reported at the profile."
    ),
    help="Set the variable to the required value under the profile's `env`.",
)
REQUIREMENT_UNDECIDED = Rule(
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
    help="Set the variable as required, or set the config key that decides the condition.",
    severity=Severity.NOTE,
)
IMPLICATION_GONE = Rule(
    code="KNB111",
    name="ImplicationGone",
    title="The registry says a launcher sets a variable under a condition, and no scanned "
    "launcher script does.",
    description=(
        "An `external` entry's `implied_by` records that a launcher script sets the variable "
        "when others hold given values (`NCCL_ALGO` when `PRIMUS_DETERMINISTIC=1`). When no "
        "write of the scan does so any more (the hook changed, or moved out of the scope), "
        "profiles that relied on the launcher no longer get the value. Reported at "
        "`implied_by`; skipped when paths on the command line narrow the scan."
    ),
    help=(
        "Restate the value in the profiles that need it and drop `implied_by`, or put the "
        "launcher script back in the scan's scope."
    ),
)
NOT_RUN_TOGETHER = Rule(
    code="KNB112",
    name="BitwiseNotRunTogether",
    title="A bitwise profile leaves on knobs judged reproducible one at a time, and no "
    "recorded run had it as a whole.",
    description=(
        "Two knobs that are each reproducible alone can break reproducibility together (two "
        "reductions that each keep a fixed order alone, and race when both are on). A "
        "profile of kind `bitwise` that leaves on two or more knobs triaged `reproducible` "
        "is assembled from single-knob verdicts unless the registry records a run of it as "
        "a whole: its own `verified` run (written by `knobs triage --search fastest-bitwise "
        "--record`), or an evidence record of a triage started from it (`profile:` names "
        "it; such a triage runs the profile itself as its baseline). A warning: it does "
        "not fail the check."
    ),
    help=(
        "Run `knobs triage --profile NAME --record -- COMMAND` (its baseline runs the profile "
        "as a whole), or `--search fastest-bitwise --record` to find and verify the fastest "
        "combination."
    ),
    severity=Severity.WARNING,
)

PROFILE_RULES: tuple[Rule, ...] = (
    BITWISE_LEAVES_ON,
    UNKNOWN_VARIABLE,
    GATE_MISMATCH,
    UNKNOWN_MEGATRON_KEY,
    MEGATRON_NOT_CHECKED,
    CONTRADICTS_LAUNCHER,
    *TORCHTITAN_RULES,
    MISSES_REQUIREMENT,
    REQUIREMENT_UNDECIDED,
    IMPLICATION_GONE,
    NOT_RUN_TOGETHER,
)
