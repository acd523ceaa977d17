"""The table of the rules, as the docs' `codes:PREFIX` blocks show it (knobregistry.docsgen
renders the blocks, and is handed this table, since check imports docsgen)."""

from __future__ import annotations

from knobregistry.check.codes import RULES
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
