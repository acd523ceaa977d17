"""`--format megatron-args`: the profile's Megatron keys as Megatron-LM command-line flags.

The file is a bash array, as Megatron-LM's own launch scripts hold their
arguments; every value is single-quoted, so none runs a command. A value that
starts with `-` is written `--flag='-value'`, as argparse would take it for a
flag after `--flag ` (in a list only a negative number can stand, so a list
holding another such value is left out). Keys of other backends, and values no
flag sets, are listed in its comment with the reason.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Mapping

from knobregistry.export.common import (
    MAX_ARG_STRLEN,
    Export,
    ExportError,
    ExportFormat,
    comment,
    header,
    trainer_config,
)
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
# What argparse reads as a negative number, not a flag (the pattern of Python 3.10 to 3.12,
# which later versions widen), in a parser with no option that looks like one: Megatron-LM's.
_NEGATIVE_NUMBER = re.compile(r"-\d+\Z|-\d*\.\d+\Z")
_DOUBLE_DASH = "'--', which argparse may drop from a command line, even written --flag=--"


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
        words = tuple(_word(key, v) for v in value)
        if "--" in words:
            return Skipped(key, _DOUBLE_DASH)
        dashed_word = next((w for w in words if _taken_for_a_flag(w)), None)
        if len(words) > 1 and dashed_word is not None:
            return Skipped(
                key,
                f"a list with a value that starts with '-' ({dashed_word!r}), which "
                "Megatron-LM's parser would take for a flag; set it in the trainer's config",
            )
        return Flag(key=key, flag=flag, values=words, origin=origin)
    word = _word(key, value)
    if word == "--":
        return Skipped(key, _DOUBLE_DASH)
    return Flag(key=key, flag=flag, values=(word,), origin=origin)


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
    size = len(text.encode("utf-8"))
    if size + 1 > MAX_ARG_STRLEN:
        raise ExportError(
            f"cannot write config.{key} as a Megatron-LM flag: its value is {size:,} bytes, and "
            f"Linux starts no program with a command-line argument over {MAX_ARG_STRLEN:,} bytes "
            "(MAX_ARG_STRLEN, its NUL included); set it in the trainer's config."
        )
    return text


def _taken_for_a_flag(word: str) -> bool:
    return word.startswith("-") and len(word) > 1 and not _NEGATIVE_NUMBER.match(word)


def _line(item: Flag) -> str:
    """The flag and its values as shell words: `--flag='-value'` for one value that starts
    with `-` (argparse would take it for a flag after `--flag `)."""
    if len(item.values) == 1 and item.values[0].startswith("-"):
        return f"{item.flag}={sh_quote(item.values[0])}"
    return " ".join([item.flag, *(sh_quote(v) for v in item.values)])


def render_megatron_args(export: Export, fmt: ExportFormat) -> str:
    """Header comment, notes on derived and missing flags, then the bash array."""
    config = export.profile.config
    flags, skipped, others = megatron_flags(trainer_config(config), export.config_keys)
    lines = header(export, fmt)
    lines.extend(_notes(flags, skipped, others))
    if not flags:
        lines.append(f"{ARRAY}=()")
        return "\n".join(lines) + "\n"
    lines.append(f"{ARRAY}=(")
    for item in flags:
        lines.append("  " + _line(item))
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
