"""`knobs catalogue` as text: each library's settings with their value, cost and sources, and
the variables it reviewed and leaves out of recipes; with --installed, the names installed
libraries hold that the catalogue has not reviewed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from knobregistry._text.plural import counted
from knobregistry.catalogue.model import Entry, Kind, Reviewed

if TYPE_CHECKING:  # `knobs catalogue` imports the ELF reader only with --installed
    from knobregistry.catalogue.installed import Drift

_HOW = {
    Kind.VARIABLE: "environment variable",
    Kind.CALL: "call at start-up",
    Kind.ATTRIBUTE: "attribute set at start-up",
}


def render_entries(found: Sequence[Entry], reviewed: Sequence[Reviewed] = ()) -> str:
    """Every entry under its library's heading, then the library's reviewed variables;
    byte-identical from run to run."""
    lines: list[str] = []
    library = None
    for index, entry in enumerate(found):
        if entry.library != library:
            if lines:
                lines.append("")
            library = entry.library
            brought = ", ".join(entry.packages) if entry.packages else "every Python project"
            lines.append(f"{library} (used when the project has: {brought})")
        lines.append(f"  {entry.name}  [{_HOW[entry.kind]}, {entry.platform.value}]")
        lines.append(f"    {entry.meaning}; deterministic: {_value(entry)}")
        if entry.default_note is not None:
            lines.append(f"    default when unset: {entry.default_note}")
        for flag in entry.flags:
            default = "" if flag.default is None else f" (default {flag.default or 'empty'})"
            lines.append(f"    flag {flag.text}{default}: {flag.meaning}")
            lines.append(f"      source: {flag.source}")
        if entry.flags:
            lines.append(
                f"    flags: a shell recipe keeps the flags {entry.name} holds and adds these "
                "after them"
            )
        if entry.shared:
            lines.append(
                f"    shared: {entry.name} holds other settings too; add the value to them "
                "where the launcher sets it (a recipe never sets it)"
            )
        if entry.read_by or entry.read_otherwise_by:
            lines.append(f"    applies: {_scope(entry)}")
        if entry.where_read:
            lines.append("    applies: only where the project's own code reads it")
        lines.append(f"    cost: {entry.cost}")
        lines.append(f"    versions: {entry.versions}")
        lines.append(f"    source: {entry.source}")
        if entry.also:
            lines.append(f"    also: {entry.also}")
        last = index + 1 == len(found) or found[index + 1].library != library
        if last:
            lines.extend(_reviewed([r for r in reviewed if r.library == library]))
    return "\n".join(lines) + "\n"


def _reviewed(groups: Sequence[Reviewed]) -> list[str]:
    """A library's reviewed variables: what a recipe leaves as the launcher has them, and why."""
    if not groups:
        return []
    lines = ["  reviewed, left out of recipes:"]
    for group in groups:
        lines.append(f"    {', '.join(group.names)}")
        lines.append(f"      why: {group.why}")
        lines.append(f"      source: {group.source}")
    return lines


def _value(entry: Entry) -> str:
    if entry.must_stay_unset:
        return f"must stay unset (a recipe writes `unset {entry.name}`)"
    if entry.kind is Kind.CALL:
        return f"{entry.name}({entry.value_text})"
    if entry.kind is Kind.ATTRIBUTE:
        return f"{entry.name} = {entry.value_text}"
    return f"{entry.name}={entry.value_text}"


def render_drift(found: Sequence[Drift]) -> str:
    """The drift as text: per installed library, its unreviewed names and where each is;
    then the libraries with nothing installed. Byte-identical from run to run."""
    lines: list[str] = []
    absent = []
    for item in found:
        if not item.binaries:
            absent.append(item.library.name)
            continue
        library = item.library
        versions = ", ".join(sorted({b.distribution for b in item.binaries}))
        prefixes = " or ".join(library.prefixes)
        objects = counted(len(item.binaries), "shared object")
        names = counted(len(item.names), "name")
        lines.append(
            f"{library.name} ({versions}): {objects}, {names} starting {prefixes}, "
            f"{len(item.unreviewed)} not reviewed" + (":" if item.unreviewed else ".")
        )
        width = max((len(n) for n, _ in item.unreviewed), default=0)
        lines.extend(f"  {name.ljust(width)}  {where}" for name, where in item.unreviewed)
        lines.extend(f"  could not read {where}: {why}" for where, why in item.unreadable)
    if absent:
        lines.append(f"Not installed here: {', '.join(absent)}.")
    if any(item.unreviewed for item in found):
        lines.append(
            "Review each name (what it changes, with a source) and add it to the library's "
            "file in knobregistry/catalogue/data/: under `settings:` when a recipe must set or "
            "unset it, under `reviewed:` with why when it need not."
        )
    return "\n".join(lines) + "\n"


def _scope(entry: Entry) -> str:
    """`where the project's code names a.b, and not a.c`: where the entry applies."""
    said = "where the project's code names " + (" or ".join(entry.read_by) or "the library")
    if entry.read_otherwise_by:
        said += ", and not " + " or ".join(entry.read_otherwise_by)
    return said
