"""`--format primus`: the profile's trainer-config keys as a Primus experiment overlay.

A Primus experiment file puts a module's settings under
`modules.<module>.overrides`: flat for Megatron (its arguments and Primus's own
keys), nested by section for TorchTitan (`debug: {seed: ...}`). Primus merges
files listed under `extends:` into the experiment (later ones win), so the
overlay goes last there. Primus replaces `${VAR}` and `${VAR:default}` in string
values with the environment when it loads a file, so such a value is refused.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import Any

from knobregistry.export.common import (
    Export,
    ExportError,
    ExportFormat,
    comment,
    header,
    trainer_config,
)
from knobregistry.export.structured import dump_yaml, nested
from knobregistry.registry.model import ConfigKey, JsonValue

MODULE = "pre_trainer"  # the training module of Primus's pretraining experiments
_INTERPOLATION = re.compile(r"\$\{[^}]*\}")  # every `${...}` Primus's loader replaces, and more


def overlay(config: Mapping[str, JsonValue], keys: Mapping[str, ConfigKey]) -> dict[str, Any]:
    """The experiment overlay for ``config``: `{modules: {pre_trainer: {overrides: ...}}}`."""
    for key, value in config.items():
        _refuse_interpolation(key, value)
    framework(config, keys)  # refuses a profile that mixes Megatron and TorchTitan keys
    return {"modules": {MODULE: {"overrides": nested(dict(config))}}}


def framework(config: Mapping[str, JsonValue], keys: Mapping[str, ConfigKey]) -> str | None:
    """`megatron` or `torchtitan`, from the keys' backends; None when no key says."""
    found: dict[str, list[str]] = {"megatron": [], "torchtitan": []}
    for key in config:
        entry = keys.get(key)
        if entry is not None and entry.backend in found:
            found[entry.backend].append(key)
    if found["megatron"] and found["torchtitan"]:
        raise ExportError(
            "cannot write one Primus overlay for both Megatron keys "
            f"({', '.join(found['megatron'])}) and TorchTitan keys "
            f"({', '.join(found['torchtitan'])}): a Primus module runs one framework; "
            "split the profile, one per framework."
        )
    return next((name for name, names in found.items() if names), None)


def _refuse_interpolation(key: str, value: Any) -> None:
    if isinstance(value, str) and _INTERPOLATION.search(value):
        raise ExportError(
            f"cannot write config.{key} for Primus: its value {value!r} holds '${{...}}', "
            "which Primus replaces with an environment variable when it loads the file."
        )
    if isinstance(value, list):
        for item in value:
            _refuse_interpolation(key, item)
    if isinstance(value, dict):
        for item in value.values():
            _refuse_interpolation(key, item)


def render_primus(export: Export, fmt: ExportFormat) -> str:
    """Header comment, how to use the overlay, then the overlay as sorted YAML that reads
    back equal (strings with YAML line breaks such as U+0085 double-quoted, as in `config`)."""
    config = trainer_config(export.profile.config)
    document = overlay(config, export.config_keys)
    which = framework(config, export.config_keys)
    usage = (
        f"A Primus experiment overlay (module {MODULE}"
        + (f", framework {which}" if which else "")
        + "). Merge it into an experiment by listing it last under `extends:` in a file of "
        "its own: extends: [your-experiment.yaml, this-overlay.yaml]."
    )
    note = textwrap.wrap(
        usage, width=96, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False
    )
    lines = header(export, fmt)
    lines.extend(comment("\n".join(note)))
    return "\n".join(lines) + "\n" + dump_yaml(document)
