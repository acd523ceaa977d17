"""`--format json` (everything, for tools) and `--format config` (the trainer-config overlay)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

from knobregistry.export.common import Export, ExportError, header
from knobregistry.registry.model import JsonValue


def render_json(export: Export) -> str:
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


def config_yaml(config: Mapping[str, JsonValue]) -> str:
    """Trainer-config values as nested, sorted YAML (safe_dump): the config overlay."""
    return yaml.safe_dump(
        nested(dict(config)),
        sort_keys=True,
        default_flow_style=False,
        allow_unicode=True,
        width=10_000,
    )


def render_config(export: Export) -> str:
    """Header comment, then the config values as sorted YAML (safe_dump)."""
    return "\n".join(header(export, "config")) + "\n" + config_yaml(export.profile.config)
