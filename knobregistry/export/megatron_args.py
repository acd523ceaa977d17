"""`--format megatron-args`: the profile's Megatron keys as Megatron-LM command-line flags.

The file is a bash array, as Megatron-LM's own launch scripts hold their
arguments; every value is single-quoted, so none runs a command. Keys of other
backends, and values no flag sets, are listed in its comment with the reason.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from dataclasses import replace

from knobregistry.export.common import Export, ExportError, comment, header
from knobregistry.export.megatron_flags import (
    FLAG,
    NO_FLAG,
    RENAMED,
    Flag,
    Origin,
    Skipped,
    boolean,
    dashed,
    valid_field,
)
from knobregistry.export.shell import sh_quote
from knobregistry.registry.model import ConfigKey, JsonValue

ARRAY = "KNOBS_MEGATRON_ARGS"


def megatron_flags(
    config: Mapping[str, JsonValue], keys: Mapping[str, ConfigKey]
) -> tuple[list[Flag], list[Skipped], list[str]]:
    """The flags for the `backend: megatron` keys of ``config`` (in its order), the keys no
    flag carries, and the other keys as `name (backend)`."""
    flags: list[Flag] = []
    skipped: list[Skipped] = []
    others: list[str] = []
    for key, value in config.items():
        entry = keys.get(key)
        if entry is None or entry.backend != "megatron":
            others.append(f"{key} ({entry.backend if entry else 'not declared under config'})")
            continue
        found = _flag(key, value, entry)
        if isinstance(found, Flag):
            flags.append(found)
        else:
            skipped.append(found)
    return flags, skipped, others


def _flag(key: str, value: JsonValue, entry: ConfigKey) -> Flag | Skipped:
    argument = entry.argument
    if argument is not None and not FLAG.match(argument):
        raise ExportError(
            f"cannot write config.{key} as a Megatron-LM flag: its `argument: {argument}` is "
            "not a flag (two dashes, then letters, digits, '_', '.', '-')."
        )
    if argument is None and not valid_field(key):
        raise ExportError(
            f"cannot write config key '{key}' as a Megatron-LM flag: a Megatron argument name "
            "is letters, digits and underscores; give it an `argument:` in the registry."
        )
    if key in NO_FLAG and argument is None:
        return Skipped(key, NO_FLAG[key])
    if isinstance(value, bool):
        return boolean(key, value, argument, entry.default if entry.has_default else None)
    if value is None:
        return Skipped(key, "null: leave the flag out, for Megatron-LM's default")
    if isinstance(value, dict):
        return Skipped(key, "a mapping, which no command-line flag takes")
    flag, origin = _named(key, argument)
    if isinstance(value, list):
        if not value or any(isinstance(v, dict | list) for v in value):
            return Skipped(key, "a list that is empty or nested, which no flag takes")
        return Flag(key=key, flag=flag, values=tuple(_word(key, v) for v in value), origin=origin)
    return Flag(key=key, flag=flag, values=(_word(key, value),), origin=origin)


def _named(key: str, argument: str | None) -> tuple[str, Origin]:
    if argument is not None:
        return argument, Origin.REGISTRY
    if key in RENAMED:
        return RENAMED[key], Origin.TABLE
    return dashed(key), Origin.CONVENTION


def _word(key: str, value: JsonValue) -> str:
    """A scalar as argparse reads it: a string as it is, a number as JSON writes it."""
    text = value if isinstance(value, str) else json.dumps(value)
    if "\0" in text:
        raise ExportError(
            f"cannot write config.{key} as a Megatron-LM flag: its value contains a NUL "
            "character, which no command-line argument can hold."
        )
    return text


def render_megatron_args(export: Export, keys: Mapping[str, ConfigKey]) -> str:
    """Header comment, notes on derived and missing flags, then the bash array."""
    flags, skipped, others = megatron_flags(export.profile.config, keys)
    # The config keys are in this file: the shared header should not send the reader on.
    lines = header(replace(export, profile=replace(export.profile, config={})), "megatron-args")
    lines.extend(_notes(flags, skipped, others))
    if not flags:
        lines.append(f"{ARRAY}=()")
        return "\n".join(lines) + "\n"
    lines.append(f"{ARRAY}=(")
    for item in flags:
        lines.append("  " + " ".join([item.flag, *(sh_quote(v) for v in item.values)]))
    lines.append(")")
    return "\n".join(lines) + "\n"


def _notes(flags: list[Flag], skipped: list[Skipped], others: list[str]) -> list[str]:
    notes = [
        "Megatron-LM command-line flags (bash). Put them last, so that they override the "
        f'launcher\'s own: . ./megatron-args.sh && torchrun pretrain_gpt.py ... "${{{ARRAY}[@]}}"',
    ]
    derived = [f.flag for f in flags if f.origin is Origin.CONVENTION]
    if derived:
        notes.append(
            "Derived from the config key names by Megatron-LM's convention (underscores to "
            "dashes; a true boolean is --flag), not read from its parser, which the "
            "megatron-core wheel does not ship: " + ", ".join(derived) + "."
        )
    if skipped:
        notes.append("Not on the command line:")
        notes.extend(f"  {s.key}: {s.why}." for s in skipped)
    if others:
        notes.append(
            "Not Megatron-LM arguments (write them with --format primus or --format config): "
            + ", ".join(others)
            + "."
        )
    out: list[str] = []
    for note in notes:
        indent = " " * (len(note) - len(note.lstrip(" ")) + 2)
        wrapped = textwrap.wrap(
            note, width=96, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False
        )
        out.extend(comment("\n".join(wrapped)))
    return out
