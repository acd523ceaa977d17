"""`--format json` (everything, for tools) and `--format config` (the trainer-config overlay).

Escaping, by character class:
- json: `json.dumps` escapes `"`, `\\` and every control character (C0, so ANSI's
  ESC too, as `\\u001b`); everything else, U+0085 and U+2028 included, is written as
  UTF-8, which JSON allows. Lone surrogates never reach it (the registry refuses them).
- config: PyYAML picks the style, and escapes in double quotes what YAML cannot hold
  raw (C0 and C1 controls, ESC as `\\e`, U+FEFF); strings with a YAML 1.1 line break
  other than `\\n` are double-quoted (see _Dumper). The header's comment lines, as
  every export's, have each character that is not printable escaped as Python writes it
  (`\\x1b`), and start a new `# ` line at each line break (common.comment).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import yaml

from knobregistry.export.common import (
    Export,
    ExportError,
    ExportFormat,
    comment,
    header,
    trainer_config,
)
from knobregistry.registry.model import JsonValue


def render_json(export: Export, fmt: ExportFormat) -> str:
    """One JSON object: profile, kind, registry, env, config, unset, costs; keys stable."""
    resolved = export.profile
    document = {
        "profile": resolved.name,
        "kind": resolved.kind.value,
        "registry": export.registry,
        "env": dict(resolved.env),
        "config": _sorted(dict(resolved.config)),
        "unset": list(export.unset),
        "costs": [{"subject": c.subject, "cost": c.text} for c in resolved.costs],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def nested(config: dict[str, JsonValue]) -> dict[str, Any]:
    """Dotted keys (`debug.seed`) as nested sections; refuses a key that is also a section."""
    out: dict[str, Any] = {}
    for key in sorted(config):
        parts = key.split(".")
        node = out
        for depth, part in enumerate(parts[:-1]):
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ExportError(_clash(".".join(parts[: depth + 1]), key))
            node = child
        node[parts[-1]] = config[key]
    return out


def _clash(section: str, key: str) -> str:
    return (
        f"the config keys '{section}' and '{key}' clash: '{section}' would be both a value and "
        "the section that holds the other; set only one of them in the profile."
    )


class _Dumper(yaml.SafeDumper):
    """safe_dump, except that a string holding U+0085, U+2028 or U+2029 is double-quoted.

    YAML 1.1 reads these as line breaks: PyYAML writes them raw in a plain or
    quoted scalar, and a reader folds them into a space. Double-quoted, PyYAML
    escapes them (`\\N`, `\\L`, `\\P`), as it does every control character and
    ANSI escape (`\\e`) in any style it picks.
    """


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if _YAML_BREAKS.search(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _string)
_YAML_BREAKS = re.compile("[\x85\u2028\u2029]")


class _PrintableDumper(_Dumper):
    """_Dumper for a page people read: every string that is not printable is double-quoted,
    so that each character that is not (a line break, ESC, U+2028) is an escape (`\\n`,
    `\\e`, `\\L`), and every line of the text is printable."""


def _printable_string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = None if value.isprintable() else '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_PrintableDumper.add_representer(str, _printable_string)


def dump_yaml(data: Any, *, printable: bool = False) -> str:
    """``data`` as sorted block YAML that reads back equal, every string included;
    ``printable``: every line of it printable (non-ASCII escaped too, as `\\u202e`)."""
    return yaml.dump(
        data,
        Dumper=_PrintableDumper if printable else _Dumper,
        sort_keys=True,
        default_flow_style=False,
        allow_unicode=not printable,
        width=10_000,
    )


def config_yaml(config: Mapping[str, JsonValue], *, printable: bool = False) -> str:
    """Trainer-config values as nested, sorted YAML: the config overlay (``printable``: as
    dump_yaml says)."""
    return dump_yaml(nested(dict(config)), printable=printable)


def render_config(export: Export, fmt: ExportFormat) -> str:
    """Header comment, then the config values as sorted YAML; a profile with no config
    keys says so, then writes an empty mapping (an empty file would load as null, which
    a trainer merging overlays does not take for "nothing to change")."""
    lines = header(export, fmt)
    config = trainer_config(export.profile.config)
    if not config:
        empty = f"Profile {export.profile.name} sets no trainer-config keys: nothing to overlay."
        lines.extend(comment(empty))
    return "\n".join(lines) + "\n" + config_yaml(config)
