"""YAML text for registry entries, prefilled from a scan: the KNB001 fix and `knobs init`."""

from __future__ import annotations

import json

import yaml

from scanner import Knob, Site


def yaml_key(name: str) -> str:
    """``name`` as a mapping key, quoted when YAML would read it as something else."""
    try:
        plain = yaml.safe_load(f"{name}: x")
    except yaml.YAMLError:
        plain = None
    if isinstance(plain, dict) and list(plain) == [name] and name.strip() == name:
        return name
    return json.dumps(name)


def yaml_string(value: str) -> str:
    """A double-quoted YAML string (JSON's escapes are valid YAML)."""
    return json.dumps(value)


def yaml_bool(value: bool | None) -> str:
    if value is None:
        return "null"
    return "true" if value else "false"


def quoted(value: str | None) -> str:
    """A variable's value as messages show it: double-quoted, or `unset`."""
    return "unset" if value is None else json.dumps(value)


def common_default(knob: Knob) -> str | None:
    """The default every site falls back to, when they all agree and it can be registered."""
    defaults = {site.default for site in knob.sites}
    if len(defaults) != 1:
        return None
    (value,) = defaults
    return value or None  # the schema wants a non-empty string


def entry_fields(knob: Knob) -> list[str]:
    """The `default` / `default_on` / `triage` lines of a new entry, unindented."""
    lines = []
    default = common_default(knob)
    if default is not None:
        lines.append(f"default: {yaml_string(default)}")
    lines.append(f"default_on: {yaml_bool(knob.default_on)}")
    lines.append("triage: untriaged")
    return lines


def entry_yaml(knob: Knob, indent: str = "") -> list[str]:
    """The entry that registers ``knob`` under `knobs:`, one string per line."""
    return [f"{indent}{yaml_key(knob.name)}:", *(f"{indent}  {f}" for f in entry_fields(knob))]


def gate_summary(knob: Knob) -> str:
    """`on by default ("0" turns it off)` and the like, for comments and messages."""
    if knob.default_on is None:
        defaults = sorted({quoted(s.default) for s in knob.sites if s.default is not None})
        if not defaults:
            return "a value knob with no default"
        return "a value knob (default " + " or ".join(defaults) + ")"
    if knob.default_on:
        if knob.off_value is None:
            return "on by default (only unsetting it turns it off)"
        return f"on by default ({quoted(knob.off_value)} turns it off)"
    if knob.on_value is None:
        return "off by default"
    return f"off by default ({quoted(knob.on_value)} turns it on)"


def site_state(site: Site) -> str:
    """What a site does when the variable is unset: `on by default`, `a value`."""
    if site.default_on is None:
        return "a value"
    return "on by default" if site.default_on else "off by default"
