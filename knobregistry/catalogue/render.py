"""`knobs catalogue` as text: each library's settings with their value, cost and sources."""

from __future__ import annotations

from collections.abc import Sequence

from knobregistry.catalogue.model import Entry, Kind

_HOW = {
    Kind.VARIABLE: "environment variable",
    Kind.CALL: "call at start-up",
    Kind.ATTRIBUTE: "attribute set at start-up",
}


def render_entries(found: Sequence[Entry]) -> str:
    """Every entry under its library's heading; byte-identical from run to run."""
    lines: list[str] = []
    library = None
    for entry in found:
        if entry.library != library:
            if lines:
                lines.append("")
            library = entry.library
            brought = ", ".join(entry.packages) if entry.packages else "every Python project"
            lines.append(f"{library} (used when the project has: {brought})")
        lines.append(f"  {entry.name}  [{_HOW[entry.kind]}, {entry.platform.value}]")
        lines.append(f"    {entry.meaning}; deterministic: {_value(entry)}")
        if entry.shared:
            lines.append(
                f"    shared: {entry.name} holds other settings too; add the value to them "
                "where the launcher sets it (a recipe never sets it)"
            )
        lines.append(f"    cost: {entry.cost}")
        lines.append(f"    versions: {entry.versions}")
        lines.append(f"    source: {entry.source}")
        if entry.also:
            lines.append(f"    also: {entry.also}")
    return "\n".join(lines) + "\n"


def _value(entry: Entry) -> str:
    if entry.kind is Kind.CALL:
        return f"{entry.name}({entry.value_text})"
    if entry.kind is Kind.ATTRIBUTE:
        return f"{entry.name} = {entry.value_text}"
    return f"{entry.name}={entry.value_text}"
