"""One function per inventory finding: its Diagnostic, with its message and fix (the rules
themselves are declared in knobregistry.check.codes)."""

from __future__ import annotations

import re
from dataclasses import replace

from knobregistry._text.plural import counted
from knobregistry.check.codes import rules
from knobregistry.check.diagnostics import Diagnostic, Rule, Severity
from knobregistry.check.where import Where
from knobregistry.registry import KnobEntry, Registry
from knobregistry.registry.feature import undecided_reason
from knobregistry.registry.site_reads import sites_yaml
from knobregistry.registry.yaml_format import (
    entry_yaml,
    gate_summary,
    quoted,
    site_state,
    yaml_bool,
    yaml_string,
)
from scanner import DynamicRead, GateKind, Knob, ScanError, Site

# Where the scanner's error message places the problem ("Syntax error at line 2, column 19").
_POSITION = re.compile(r"\bline (\d+)(?:, column (\d+))?")
UNREGISTERED, STALE, DEFAULT_DRIFT, CONFLICTING = rules("KNB001", "KNB002", "KNB003", "KNB004")
DYNAMIC_READ, UNSCANNABLE, UNDECIDED = rules("KNB006", "KNB007", "KNB008")


def _diagnostic(
    found: Rule, where: str, line: int, column: int, message: str, **kw: str
) -> Diagnostic:
    return found.diagnostic(where, line, column, message, fix=kw.get("fix"), knob=kw.get("knob"))


def _read_at(knob: Knob) -> str:
    others = len(knob.sites) - 1
    if others == 0:
        return "read here"
    return f"read here and at {counted(others, 'more site')}"


def _undecided_site(knob: Knob) -> tuple[Site, str]:
    """The first site whose gate is undecided, and how many more sites read the knob."""
    site = next((s for s in knob.sites if s.gate.kind is GateKind.UNKNOWN), knob.sites[0])
    others = len(knob.sites) - 1
    return site, f" (and at {counted(others, 'more site')})" if others else ""


def unregistered(where: Where, knob: Knob) -> Diagnostic:
    """KNB001: a knob the policy requires, in neither `knobs` nor `external`."""
    site = knob.sites[0]
    registry = where.registry_file
    fix = "\n".join(
        [f"Register it in {registry} under `knobs:`, then triage it:", *entry_yaml(knob, "  ")]
    )
    message = (
        f"{knob.name} is not registered in {registry}: it is {gate_summary(knob)} "
        f"and {_read_at(knob)}."
    )
    return _diagnostic(
        UNREGISTERED,
        where.show(site.path),
        site.line,
        site.column,
        message,
        fix=fix,
        knob=knob.name,
    )


def undecided(where: Where, knob: Knob) -> Diagnostic:
    """KNB008: a knob whose gate the scanner could not decide, in neither `knobs` nor
    `external`: never taken as off or as a value; a person reads the code and registers it."""
    site, more = _undecided_site(knob)
    registry = where.registry_file
    message = (
        f"{knob.name} is read here{more}, but the scanner cannot decide what its gate does: "
        f"{undecided_reason(knob)}. It is not registered in {registry}, so nothing says "
        "whether it is on by default."
    )
    fix = "\n".join(
        [
            f"Read the code (`knobs explain {knob.name}`), then register it in {registry} "
            "under `knobs:` with what you found, and triage it:",
            *entry_yaml(knob, "  "),
        ]
    )
    return _diagnostic(
        UNDECIDED, where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
    )


def still_undecided(where: Where, knob: Knob, reason: str) -> Diagnostic:
    """KNB008 as a note: a knob registered as undecided (`undecided:` in its entry, as `knobs
    init` writes it): the registry says what the code says, so the check passes; no profile
    sets it until a person has decided its gate."""
    site, more = _undecided_site(knob)
    registry = where.registry_file
    message = (
        f"{knob.name} is read here{more}, and {registry} registers its gate as undecided: "
        f"{reason}. No profile sets it until someone decides."
    )
    fix = (
        f"Read the code (`knobs explain {knob.name}`), then in knobs.{knob.name} write "
        "`default_on` (true or false for a switch, null for a value) and remove `undecided`."
    )
    found = _diagnostic(
        UNDECIDED, where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
    )
    return replace(found, severity=Severity.NOTE)


def stale(where: Where, name: str, unmatched: bool) -> Diagnostic:
    """KNB002: a registered knob that the scan did not find."""
    line, column = where.registry_line("knobs", name)
    patterns = ", ".join(yaml_string(p) for p in where.registry.scan.match)
    if unmatched:
        message = (
            f"{name} is registered, but scan.match ({patterns}) does not select it, "
            "so no scan can find it."
        )
        fix = (
            "Add a pattern that matches it to scan.match, or move the entry under "
            "`external` if only a library reads it."
        )
    else:
        message = f"{name} is registered, but no code in the scan scope reads it."
        fix = (
            "Remove the entry if the gate is gone; if the code moved, widen scan.paths; "
            "if only a library reads it, move the entry under `external`."
        )
    return _diagnostic(STALE, where.registry_file, line, column, message, fix=fix, knob=name)


def default_drift(where: Where, knob: Knob, entry: KnobEntry, site: Site) -> Diagnostic:
    """KNB003: a site whose default or on/off state differs from the entry."""
    key = "default" if entry.default is not None else "default_on"
    line, _ = where.registry_line("knobs", knob.name, key)
    registry = where.registry_file
    code_side = (
        f"falls back to {quoted(site.default)} here"
        if site.default is not None
        else "has no default here"
    )
    message = (
        f"{knob.name} {code_side} ({site_state(site)}), but {registry}:{line} registers "
        f"{_registered(entry, where, knob.name)}."
    )
    lines = [f"If the change is intended, set in {registry}, under knobs.{knob.name}:"]
    if entry.default is not None:
        lines.append(
            f"  default: {yaml_string(site.default)}" if site.default else "  (remove `default`)"
        )
    if states_default_on(where.registry, knob.name):
        value = site.default_on if site.default_on is not None else knob.default_on
        lines.append(f"  default_on: {yaml_bool(value)}")
    lines.append("and review its triage; otherwise restore the default in the code.")
    return _diagnostic(
        DEFAULT_DRIFT,
        where.show(site.path),
        site.line,
        site.column,
        message,
        fix="\n".join(lines),
        knob=knob.name,
    )


def states_default_on(registry: Registry, name: str) -> bool:
    """Whether the entry writes `default_on` (null included), not merely leaves it out."""
    return ("knobs", name, "default_on") in registry.positions


def _registered(entry: KnobEntry, where: Where, name: str) -> str:
    state = None
    if states_default_on(where.registry, name):
        if entry.default_on is None:
            state = "a value knob"
        else:
            state = "on by default" if entry.default_on else "off by default"
    if entry.default is None:
        return f"it as {state}"
    return f"default {quoted(entry.default)}" + (f" ({state})" if state else "")


def conflicting(where: Where, knob: Knob, site: Site) -> Diagnostic:
    """KNB004: sites of one knob that disagree, reported at ``site``."""
    reason = _rewrite_paths(knob.conflict_reason or "its sites disagree", knob, where)
    message = f"{knob.name} is read with conflicting defaults: {reason}."
    fix = "\n".join(
        [
            "Make every site read it the same way (one helper function, or one module "
            "constant for the default), then run `knobs check` again. In code you do not "
            f"own, accept the sites as they are: record how each reads it in "
            f"{where.registry_file} under knobs.{knob.name}, and the check holds the code to it:",
            *(f"  {text}" for text in sites_yaml(knob)),
        ]
    )
    return _diagnostic(
        CONFLICTING, where.show(site.path), site.line, site.column, message, fix=fix, knob=knob.name
    )


def _rewrite_paths(text: str, knob: Knob, where: Where) -> str:
    """The scanner names sites relative to the registry's folder; show them as elsewhere."""
    renames = {s.path: where.show(s.path) for s in knob.sites}
    renames = {old: new for old, new in renames.items() if old != new}
    if not renames:
        return text
    alternatives = "|".join(re.escape(p) for p in sorted(renames, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w/.-])({alternatives})(?=:\d)")
    return pattern.sub(lambda m: renames[m.group(1)], text)


def dynamic(where: Where, read: DynamicRead) -> Diagnostic:
    """KNB006: a read whose variable name the scanner cannot resolve."""
    message = (
        f"The variable read by `{read.shown}` cannot be resolved ({read.reason}), so "
        f"{where.registry_file} cannot register it."
    )
    fix = (
        "Name the variable with a string literal or a module-level constant, "
        "so that the knob can be registered."
    )
    where_read = where.show(read.path)
    return _diagnostic(DYNAMIC_READ, where_read, read.line, read.column, message, fix=fix)


def unscannable(where: Where, error: ScanError) -> Diagnostic:
    """KNB007: a file in the scope that could not be read or parsed."""
    found = _POSITION.search(error.message)
    line = int(found.group(1)) if found else 0
    column = int(found.group(2)) if found and found.group(2) else 0
    detail = error.message.rstrip(".")
    message = f"This file could not be scanned, so its knobs are not checked: {detail}."
    fix = "\n".join(
        [
            "If the file is yours, fix it. If it is code you do not edit (a vendored or "
            f"installed library), leave it out of the scan in {where.registry_file}:",
            "  scan:",
            "    exclude:",
            f"      - {yaml_string(error.path)}",
        ]
    )
    return _diagnostic(UNSCANNABLE, where.show(error.path), line, column, message, fix=fix)
