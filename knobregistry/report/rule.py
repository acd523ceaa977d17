"""The view of `knobs rule`: one code's page, or the list of every code."""

from __future__ import annotations

import textwrap

from knobregistry.diagnostics import Rule

WIDTH = 88


def _paragraph(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent)


def render_rule(rule: Rule) -> str:
    """One rule's page: code, name and severity; what it means; an example; the fix."""
    severity = (
        "a registry error, reported when the registry loads"
        if rule.reserved
        else (rule.severity.value)
    )
    lines = [
        f"{rule.code} {rule.name} ({severity})",
        "",
        *_paragraph(rule.title),
        "",
        *_paragraph(rule.description),
        "",
        "Example:",
        *(f"    {line}".rstrip() for line in rule.example.splitlines()),
        "",
        "Fix:",
        *_paragraph(rule.help, "    "),
        "",
        f"Documented in {rule.docs}",
    ]
    return "\n".join(lines) + "\n"


def render_rule_list(rules: tuple[Rule, ...]) -> str:
    """Every code, one line each: code, name, severity, what it means."""
    name_width = max(len(rule.name) for rule in rules)
    severity = {r.code: "(registry error)" if r.reserved else r.severity.value for r in rules}
    severity_width = max(len(s) for s in severity.values())
    lines = [
        f"{rule.code}  {rule.name:<{name_width}}  {severity[rule.code]:<{severity_width}}  "
        f"{rule.title}"
        for rule in rules
    ]
    return "\n".join(lines) + "\n"
