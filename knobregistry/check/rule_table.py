"""The rules as the docs show them: the table of the `codes:PREFIX` blocks (knobregistry.docsgen
renders the blocks, and is handed this table, since check imports docsgen), and each page's
sections and table of codes, which the docs site renders when it is built (knobregistry.docsite)."""

from __future__ import annotations

from knobregistry.check.codes import RULES
from knobregistry.check.diagnostics import Rule
from knobregistry.docsgen.render import table


def render_codes(prefix: str) -> list[str]:
    """The table of the check codes that start with ``prefix``, each linked to its section
    (from a page of docs/: a section of docs/checks.md by its anchor alone)."""
    rows = []
    for rule in RULES:
        if not rule.code.startswith(prefix):
            continue
        page = "" if rule.page == "checks.md" else rule.page
        severity = "(registry error)" if rule.reserved else rule.severity.value
        rows.append([f"[{rule.code}]({page}#{rule.anchor})", rule.name, severity, rule.title])
    return table(["code", "name", "severity", "what it means"], rows)


def documented_on(page: str, *prefixes: str) -> tuple[Rule, ...]:
    """The rules documented on ``page`` (a page of docs/) whose code starts with one of
    ``prefixes`` (any code when none is given), in the order of their codes."""
    return tuple(
        rule
        for rule in RULES
        if rule.page == page and (not prefixes or rule.code.startswith(prefixes))
    )


def render_sections(rules: tuple[Rule, ...]) -> str:
    """Each rule's section of its docs page: its `### CODE Name` heading, then its text."""
    return "\n".join(f"### {rule.code} {rule.name}\n\n{rule.section}" for rule in rules)


def render_page_table(rules: tuple[Rule, ...]) -> list[str]:
    """The table of the codes a page documents (code, name, severity, what it means)."""
    rows = [[rule.code, rule.name, rule.severity.value, rule.title] for rule in rules]
    return table(["code", "name", "severity", "what it means"], rows)
