"""The JSON contract of `knobs scan --format json` (docs/scanning.md says what it holds;
fields are only ever added)."""

from __future__ import annotations

from typing import Any

from knobregistry._io.jsontext import dumps
from scanner import DynamicRead, Knob, ScanError, ScanResult, Site, WrapperInfo, Write


def site_json(site: Site) -> dict[str, Any]:
    """One site; the contract's fields first, then the gate details."""
    return {
        "path": site.path,
        "line": site.line,
        "column": site.column,
        "default": site.default,
        "default_on": site.default_on,
        "function": site.function,
        "via": site.via,
        "language": site.language.value,
        "reason": site.reason,
        "kind": site.kind.value,
        "gate": site.gate.kind.value,
        "polarity": site.polarity.value,
        "off_value": site.gate.off_value,
        "on_value": site.gate.on_value,
        "off_values": list(site.gate.off_values),
        "on_values": list(site.gate.on_values),
        "choices": list(site.gate.choices),
        "target": site.target,
        "default_computed": site.default_computed,
    }


def knob_json(knob: Knob) -> dict[str, Any]:
    found: dict[str, Any] = {
        "name": knob.name,
        "default_on": knob.default_on,
        "off_value": knob.off_value,
        "conflict": knob.conflict,
        "sites": [site_json(s) for s in knob.sites],
        "kind": knob.kind.value,
        "polarity": knob.polarity.value,
        "reason": knob.reason,
        "on_value": knob.on_value,
        "conflict_reason": knob.conflict_reason,
        "role": knob.role.value,
        "role_reason": knob.role_reason,
        "set_by": [_write(w) for w in knob.set_by],
    }
    if knob.together:  # only where variables choose together: every other knob as before
        found["together"] = dict(knob.together)
    return found


def _dynamic(read: DynamicRead) -> dict[str, Any]:
    return {
        "path": read.path,
        "line": read.line,
        "column": read.column,
        "expression": read.expression,
        "function": read.function,
        "reason": read.reason,
    }


def _error(error: ScanError) -> dict[str, Any]:
    return {"path": error.path, "message": error.message}


def _write(write: Write) -> dict[str, Any]:
    return {
        "name": write.name,
        "path": write.path,
        "line": write.line,
        "column": write.column,
        "value": write.value,
        "kind": write.kind.value,
        "function": write.function,
        "via": write.via,
        "language": write.language.value,
        "condition": write.condition,
        "when": dict(write.when),
        "computed": write.computed,
    }


def _wrapper(wrapper: WrapperInfo) -> dict[str, Any]:
    return {
        "name": wrapper.qualname,
        "path": wrapper.path,
        "line": wrapper.line,
        "name_param": wrapper.name_param,
    }


def scan_to_json(result: ScanResult) -> dict[str, Any]:
    """The whole result as JSON-ready data, in a stable order."""
    return {
        "knobs": [knob_json(k) for k in result.knobs],
        "dynamic": [_dynamic(d) for d in result.dynamic],
        "errors": [_error(e) for e in result.errors],
        "writes": [_write(w) for w in result.writes],
        "wrappers": [_wrapper(w) for w in result.wrappers],
        "files_scanned": result.files_scanned,
    }


def render_scan_json(result: ScanResult) -> str:
    """The JSON document, byte-identical from run to run."""
    return dumps(scan_to_json(result)) + "\n"
