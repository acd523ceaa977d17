"""`knobs check --format sarif`: SARIF 2.1.0 for GitHub code scanning. No timestamps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from knobregistry import __version__
from knobregistry._io.jsontext import dumps
from knobregistry.check.diagnostics import Diagnostic, Rule, Severity

if TYPE_CHECKING:
    from knobregistry.check.run import CheckResult

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "knobregistry"
_PROBLEM_SEVERITY = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.NOTE: "recommendation",
}


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.description},
        "helpUri": rule.docs,
        "help": {
            "text": f"{rule.help} See {rule.docs}.",
            "markdown": f"{rule.help}\n\nSee [{rule.code}]({rule.docs}).",
        },
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {
            "tags": ["determinism", "environment-knobs"],
            "precision": "very-high",
            "problem.severity": _PROBLEM_SEVERITY[rule.severity],
        },
    }


def _location(diagnostic: Diagnostic) -> dict[str, Any]:
    # A finding about a whole file (line 0) points at its first line: GitHub needs a line.
    region: dict[str, int] = {"startLine": max(diagnostic.line, 1)}
    if diagnostic.line > 0 and diagnostic.column > 0:
        region["startColumn"] = diagnostic.column
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": quote(diagnostic.path), "uriBaseId": "%SRCROOT%"},
            "region": region,
        }
    }


def _result(diagnostic: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    # A code without a rule (a check that did not declare it) still reports, without ruleIndex.
    text = diagnostic.message
    if diagnostic.fix:
        text += "\n" + diagnostic.fix
    result: dict[str, Any] = {"ruleId": diagnostic.code}
    if diagnostic.code in index:
        result["ruleIndex"] = index[diagnostic.code]
    result["level"] = diagnostic.severity.value
    result["message"] = {"text": text}
    result["locations"] = [_location(diagnostic)]
    if diagnostic.knob is not None:
        result["properties"] = {"knob": diagnostic.knob}
    return result


def check_to_sarif(result: CheckResult) -> dict[str, Any]:
    """A SARIF log with one run: every rule, then one result per finding."""
    rules = list({rule.code: rule for rule in result.rules}.values())
    index = {rule.code: i for i, rule in enumerate(rules)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index) for d in result.diagnostics],
                "properties": {"registry": result.registry, "policy": result.policy.value},
            }
        ],
    }


def render_check_sarif(result: CheckResult) -> str:
    """The SARIF document, byte-identical between runs."""
    return dumps(check_to_sarif(result)) + "\n"
