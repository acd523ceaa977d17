"""YAML text for registry entries, prefilled from a scan: the KNB001 fix and `knobs init`."""

from __future__ import annotations

import json

import yaml

from knobregistry._text.surrogates import LONE_SURROGATE
from knobregistry.registry.feature import (
    SWITCHES,
    Off,
    computed_default,
    computed_off,
    feature_values,
    is_choice,
    is_launch_fact,
    is_required,
    is_undecided,
    launched_on,
    off_state,
    split_on_value,
    undecided_gate,
    undecided_reason,
)
from scanner import GateKind, Knob, Polarity, Site


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
    return value if value and registrable(value) else None  # the schema: a non-empty string


def registrable(value: str) -> bool:
    """Whether the registry can hold ``value``: it refuses a lone surrogate (a Python string
    may hold one; no file, shell or YAML text can carry it as it is)."""
    return LONE_SURROGATE.search(value) is None


def entry_fields(knob: Knob, *, polarity: bool = False) -> list[str]:
    """The lines of a new entry, unindented: `default`, `default_on`, `polarity`, the gate's
    values, the proposed `role`, `required` for a variable the code needs set, and `triage`.

    With ``polarity`` (`knobs init`) a switch states its polarity and off value always (null
    for a gate only unsetting turns off), and its on value when a profile could not guess
    it ("1"); else (the KNB001 snippet) only a disable knob's polarity and an off value
    other than "0". An undecided knob is registered with `default_on: null` and the
    scanner's reason under `undecided`, which no profile turns off and `knobs check` reports
    until a person has read the code; where its sites disagree only on what turns them off,
    with the `on_value` that turns every one on, which `set: on` may write; where only its
    state unset is computed by the run, with the `off_value` every site reads as off, which
    `set: off` may write."""
    lines = []
    default = common_default(knob)
    if default is not None:
        lines.append(f"default: {yaml_string(default)}")
    undecided = undecided_gate(knob)
    lines.append(f"default_on: {yaml_bool(None if undecided else knob.default_on)}")
    if undecided is not None:
        lines.append(f"undecided: {yaml_string(undecided if registrable(undecided) else '?')}")
        on = split_on_value(knob)
        if on is not None and registrable(on):
            lines.append(f"on_value: {yaml_string(on)}  # it turns every site on")
        off = computed_off(knob)
        if off is not None and registrable(off) and knob.polarity is Polarity.DISABLE:
            lines.append("polarity: disable")
            lines.append(f"on_value: {yaml_string(off)}  # it turns it off, whatever it is unset")
        elif off is not None and registrable(off):
            lines.append(f"off_value: {yaml_string(off)}  # it turns it off, whatever it is unset")
    elif knob.kind in SWITCHES:
        lines.extend(_switch_fields(knob, explicit=polarity))
        launched = launched_on(knob)
        if launched is not None and registrable(launched):
            lines.append(f"launched_on: {yaml_string(launched)}")
    elif is_choice(knob) and knob.off_value is not None and registrable(knob.off_value):
        lines.append(f"off_value: {yaml_string(knob.off_value)}")
    if knob.together and all(registrable(v) for _, v in knob.together):
        pairs = ", ".join(f"{yaml_key(n)}: {yaml_string(v)}" for n, v in knob.together)
        lines.append(f"together: {{{pairs}}}  # all of them, or none")
    lines.extend(role_fields(knob))
    if is_required(knob):
        lines.append("required: true")
    lines.append("triage: untriaged")
    return lines


def role_fields(knob: Knob) -> list[str]:
    """`role: {proposed: ROLE, reason: ...}`, as lines: the scan's proposal, for a person
    to confirm (`role: ROLE`)."""
    reason = knob.role_reason or "the scanner gave no reason"
    return [
        "role:",
        f"  proposed: {knob.role.value}",
        f"  reason: {yaml_string(reason if registrable(reason) else '?')}",
    ]


def _switch_fields(knob: Knob, *, explicit: bool) -> list[str]:
    """`polarity`, `off_value` and `on_value` of a switch, as :func:`entry_fields` says."""
    lines = []
    if explicit or knob.polarity is Polarity.DISABLE:
        lines.append(f"polarity: {knob.polarity.value}")
    off, on = knob.off_value, knob.on_value
    if off is not None and registrable(off) and (explicit or off != "0"):
        lines.append(f"off_value: {yaml_string(off)}")
    elif off_state(knob) is Off.UNSET:
        lines.append("off_value: null  # only unsetting it turns it off")
    if explicit and on is not None and registrable(on) and on != "1":
        lines.append(f"on_value: {yaml_string(on)}")
    return lines


def entry_yaml(knob: Knob, indent: str = "", *, polarity: bool = False) -> list[str]:
    """The entry that registers ``knob`` under `knobs:`, one string per line."""
    fields = entry_fields(knob, polarity=polarity)
    return [f"{indent}{yaml_key(knob.name)}:", *(f"{indent}  {f}" for f in fields)]


def gate_summary(knob: Knob) -> str:
    """`on by default ("0" turns it off)` and the like, for comments and messages; a
    disable knob says what it does to its feature."""
    if is_launch_fact(knob):
        return "a launch fact (set by the launcher, not a switch)"
    if is_undecided(knob):
        return f"undecided ({undecided_reason(knob)})"
    unset_computed = computed_default(knob)
    if unset_computed is not None:
        return f"undecided ({unset_computed})"
    if knob.kind is GateKind.REQUIREMENT:
        first = next(s for s in knob.sites if s.gate.kind is GateKind.REQUIREMENT)
        accepted = " or ".join(quoted(v) for v in first.gate.on_values[:3])
        return f"required (the code raises unless it is {accepted})"
    if knob.default_on is None:
        defaults = sorted({quoted(s.default) for s in knob.sites if s.default is not None})
        computed = sorted({s.default_computed for s in knob.sites if s.default_computed})
        if not defaults and computed:
            return f"a value knob (default computed when it runs: {' or '.join(computed)})"
        if not defaults:
            return "a value knob with no default"
        return "a value knob (default " + " or ".join(defaults) + ")"
    if knob.polarity is Polarity.DISABLE:
        return _disable_summary(knob)
    if knob.default_on:
        if knob.off_value is None:
            return "on by default (only unsetting it turns it off)"
        return f"on by default ({quoted(knob.off_value)} turns it off)"
    if knob.on_value is None:
        return "off by default"
    return f"off by default ({quoted(knob.on_value)} turns it on)"


def _disable_summary(knob: Knob) -> str:
    """A disable knob: its own state, and its feature's."""
    feature_off, feature_on = feature_values(knob.off_value, knob.on_value, knob.polarity)
    if knob.default_on is False:
        head = "off by default, so the feature it disables is on"
        how = f"{quoted(feature_off)} turns the feature off" if feature_off else None
    else:
        head = "on by default, so the feature it disables is off"
        how = f"{quoted(feature_on)} turns the feature on" if feature_on else None
    return f"{head} ({how})" if how else head


def site_state(site: Site) -> str:
    """What a site does when the variable is unset: `on by default`, `a value`."""
    if site.gate.kind is GateKind.LAUNCH:
        return "a launch fact"
    if site.gate.kind is GateKind.UNKNOWN:
        return "undecided"
    if site.default_on is None:
        return "a value"
    return "on by default" if site.default_on else "off by default"
