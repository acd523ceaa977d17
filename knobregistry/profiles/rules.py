"""The KNB1xx codes: what `knobs check` holds profiles to. Codes never change meaning."""

from __future__ import annotations

from dataclasses import dataclass

from knobregistry.diagnostics import Severity


@dataclass(frozen=True, slots=True)
class ProfileRule:
    """One profile check: its code, a CamelCase name, a one-line title, and what to do."""

    code: str
    name: str
    title: str
    help: str
    severity: Severity = Severity.ERROR


BITWISE_LEAVES_ON = ProfileRule(
    "KNB101",
    "BitwiseLeavesKnobOn",
    "A bitwise profile leaves on a default-on knob that is not triaged reproducible.",
    "Set the knob to its off value in the profile, or add a select rule that covers it "
    "(default_on: true, triage_not: reproducible, set: off); or triage it.",
)
UNKNOWN_VARIABLE = ProfileRule(
    "KNB102",
    "ProfileSetsUnknownVariable",
    "A profile sets a variable that no scanned code reads and no `external` entry declares.",
    "Fix the name, or declare the variable under `external` with the library that reads it.",
)
GATE_MISMATCH = ProfileRule(
    "KNB103",
    "ProfileValueMissesGate",
    "A profile value does not put the scanned gate in the state it is meant to.",
    "Write a value the gate treats as intended (the message lists them), or give the knob "
    "its `off_value` / `on_value` in the registry.",
)
UNKNOWN_MEGATRON_KEY = ProfileRule(
    "KNB104",
    "UnknownMegatronConfigKey",
    "A config key declared `backend: megatron` is no field of megatron-core's config classes.",
    "Fix the name; mark a Megatron command-line argument with `argument: --name`; or declare "
    "the key's real backend (primus, for keys Primus adds).",
)
MEGATRON_NOT_CHECKED = ProfileRule(
    "KNB105",
    "MegatronKeysNotChecked",
    "megatron-core is not installed, so the megatron config keys were not checked.",
    "Install megatron-core in the environment that runs `knobs check` (pip install "
    "megatron-core) to check them.",
    Severity.NOTE,
)

PROFILE_RULES: tuple[ProfileRule, ...] = (
    BITWISE_LEAVES_ON,
    UNKNOWN_VARIABLE,
    GATE_MISMATCH,
    UNKNOWN_MEGATRON_KEY,
    MEGATRON_NOT_CHECKED,
)
