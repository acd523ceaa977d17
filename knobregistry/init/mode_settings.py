"""The settings the project's own deterministic mode writes, as `external` stack settings.

sglang pins NCCL's algorithm and channel count when its deterministic mode is on
(srt/arg_groups/attention_hook.py:676, :697-698): a recipe that turns the mode on through
the environment, or a run started another way, needs them written too. The scan finds them
(``scanner.ModeWrite``); `knobs init` registers each variable no scanned knob reads and no
catalogue setting already holds, with role `stack`, so the bitwise profile sets it. A
variable only the project's tests read (vllm-ascend's tests/ut/test_batch_invariant.py:37-38
check what override_envs_for_invariance writes) is no knob of the project's code: the
setting takes its place.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from knobregistry.registry.yaml_format import yaml_key, yaml_string
from scanner import Knob, ModeWrite
from scanner.suite_files import TEST_FILE

MODE_COMMENT = """\
  # Written by the project's own deterministic mode for the processes it starts (the
  # scan read the write and the test of the mode it sits under): the bitwise profile
  # sets each to that value, so a run that turns the mode on another way gets it too."""

DESCRIPTION = "the value the tree's own deterministic mode writes for the processes it starts"


def mode_settings(found: Sequence[ModeWrite], taken: Collection[str]) -> list[ModeWrite]:
    """The settings of ``found`` that no scanned knob or catalogue setting (``taken``) holds."""
    return [m for m in found if m.name not in taken]


def checked_by_tests(knobs: Sequence[Knob], found: Sequence[ModeWrite]) -> frozenset[str]:
    """The variables of ``found`` whose scanned knob only the project's tests read."""
    written = {m.name for m in found}
    return frozenset(
        k.name
        for k in knobs
        if k.name in written and all(TEST_FILE.search(s.path) for s in k.sites)
    )


def mode_entries(settings: Sequence[ModeWrite]) -> list[str]:
    """One `external` entry per setting, with where the write and the mode's test are."""
    lines = MODE_COMMENT.splitlines()
    for setting in settings:
        source = (
            f"{setting.path}:{setting.line} writes {setting.name}={setting.value!r} under "
            f"{setting.mode}"
        )
        lines.extend(
            [
                f"  {yaml_key(setting.name)}:",
                f"    description: {yaml_string(DESCRIPTION)}",
                "    role: stack",
                f"    deterministic: {yaml_string(setting.value)}",
                f"    source: {yaml_string(source)}",
            ]
        )
    return lines
