"""`knobs check --format json`: one stable JSON document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from knobregistry._io.jsontext import dumps
from knobregistry.check.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from knobregistry.check.run import CheckResult

FORMAT_VERSION = 1


def diagnostic_json(diagnostic: Diagnostic) -> dict[str, Any]:
    return {
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "path": diagnostic.path,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "knob": diagnostic.knob,
        "message": diagnostic.message,
        "fix": diagnostic.fix,
    }


def check_to_json(result: CheckResult) -> dict[str, Any]:
    """The result as JSON-ready data; fields are only ever added."""
    document: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "registry": result.registry,
        "policy": result.policy.value,
        "paths": list(result.paths),
        "stale_checked": result.stale_checked,
        "summary": {
            "status": "drift" if result.drift else "clean",
            "errors": result.count(Severity.ERROR),
            "warnings": result.count(Severity.WARNING),
            "notes": result.count(Severity.NOTE),
            "knobs": result.knobs,
            "files": result.files,
        },
        "diagnostics": [diagnostic_json(d) for d in result.diagnostics],
    }
    if result.baseline is not None:
        document["baseline"] = {"path": result.baseline, "hidden": result.baselined}
    return document


def render_check_json(result: CheckResult) -> str:
    """The JSON document, byte-identical between runs."""
    return dumps(check_to_json(result)) + "\n"
