"""The view of `knobs rule`: one code's page, or the list of every code."""

from __future__ import annotations

from knobregistry._text.columns import Column, Wrap, layout, prose
from knobregistry.check.diagnostics import Rule

LIST_COLUMNS = (Column("code"), Column("name", Wrap.WHOLE), Column("severity"), Column("meaning"))


def render_rule(rule: Rule, width: int) -> str:
    """One rule's page: code, name and severity; what it means; an example; the fix; each
    line at most ``width`` characters but for a word longer than a line."""

    def _paragraph(text: str, indent: str = "") -> list[str]:
        return prose(text, width, indent, indent)

    severity = (
        "a registry error, reported when the registry loads"
        if rule.reserved
        else (rule.severity.value)
    )
    lines = [
        *prose(f"{rule.code} {rule.name} ({severity})", width, rest="  "),
        "",
        *_paragraph(rule.title),
        "",
        *_paragraph(rule.description),
        "",
        "Example:",
        *(
            shown
            for line in rule.example.splitlines()
            for shown in (prose(line, width, "    ", "        ") if line.strip() else [""])
        ),
        "",
        "Fix:",
        *_paragraph(rule.help, "    "),
        "",
        *prose(f"Documented in {rule.docs}", width, rest="  "),
    ]
    return "\n".join(lines) + "\n"


def render_rule_list(rules: tuple[Rule, ...], width: int) -> str:
    """Every code, one row each (no header): code, name, severity, what it means, laid out
    to ``width``."""
    rows = [
        [
            rule.code,
            rule.name,
            "(registry error)" if rule.reserved else rule.severity.value,
            rule.title,
        ]
        for rule in rules
    ]
    return "\n".join(line.plain for line in layout(LIST_COLUMNS, rows, width, header=False)) + "\n"
