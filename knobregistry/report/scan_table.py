"""The human view of a scan: one table row per knob, then what could not be resolved."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from knobregistry._text.columns import Cell, Column, Wrap, layout, prose
from knobregistry._text.plural import counted
from knobregistry._text.printable import printable
from knobregistry.registry.feature import SWITCHES, is_launch_fact, is_undecided, undecided_reason
from scanner import GateKind, Knob, Language, ScanResult, Site
from scanner.run.readers import display


def yes_no(value: bool | None) -> str:
    """``yes`` / ``no`` / ``value`` for a knob's default_on."""
    if value is None:
        return "value"
    return "yes" if value else "no"


def on_by_default(knob: Knob) -> str:
    """The table's verdict: ``yes`` / ``no`` for a switch, ``value``, ``launch`` for a launch
    fact, ``required`` when code raises unless it holds given values, ``?`` when the
    scanner could not decide."""
    if is_launch_fact(knob):
        return "launch"
    if knob.kind is GateKind.REQUIREMENT:
        return "required"
    if is_undecided(knob):
        return "?"
    return yes_no(knob.default_on)


def polarity(knob: Knob) -> str:
    """``enable`` / ``disable`` for a switch; ``-`` for anything else."""
    return knob.polarity.value if knob.kind in SWITCHES else "-"


def shown(value: str | None) -> str:
    """A variable's value as the table shows it: quoted (control characters escaped), or
    a dash when absent."""
    if value is None:
        return "-"
    return repr(value)


# The table's columns: a knob name is never broken (rows stack when names are too long
# for the width), paths break after a `/`, the rest at blanks.
COLUMNS = (
    Column("knob", Wrap.WHOLE),
    Column("default", Wrap.PATH),
    Column("on by default?"),
    Column("polarity"),
    Column("role"),
    Column("off value", Wrap.PATH),
    Column("read in"),
    Column("sites", Wrap.PATH),
)
# Shown only when a launcher of the scan sets some knob.
SET_BY = Column("set by", Wrap.PATH)


def layers(knob: Knob) -> str:
    """Where the knob is read: ``py``, ``sh``, ``yaml``, ``docker`` (a Dockerfile ARG),
    ``ci`` (a CI workflow's scripts), joined by ``+``."""
    found = {s.language for s in knob.sites}
    return "+".join(display(language) for language in Language if language in found)


def _sites(knob: Knob) -> str:
    first = knob.sites[0]
    more = len(knob.sites) - 1
    return f"{first.path}:{first.line}" + (f" (+{more})" if more else "")


def set_by(knob: Knob) -> str:
    """The first launcher write that sets the knob, ``run.sh:3 '0'`` (a computed value:
    ``computed``), and how many more; ``-`` when none does."""
    if not knob.set_by:
        return "-"
    first = knob.set_by[0]
    value = shown(first.value) if first.value is not None else "computed"
    more = len(knob.set_by) - 1
    return f"{first.path}:{first.line} {value}" + (f" (+{more})" if more else "")


def render_scan_table(result: ScanResult, console: Console) -> None:
    """Print the knob table, dynamic reads, errors and a summary line, each line at most
    the console's width."""
    width = console.width
    if result.knobs:
        setters = any(k.set_by for k in result.knobs)
        rows: list[list[Cell]] = []
        for knob in result.knobs:
            on = on_by_default(knob)
            row: list[Cell] = [
                printable(knob.name),
                _default(knob),
                Text(f"{on} (conflict)", style="red") if knob.conflict else on,
                polarity(knob),
                knob.role.value,
                shown(knob.off_value),
                layers(knob),
                printable(_sites(knob)),
            ]
            if setters:
                row.append(printable(set_by(knob)))
            rows.append(row)
        columns = (*COLUMNS, SET_BY) if setters else COLUMNS
        for line in layout(columns, rows, width, rule=True, header_style="bold"):
            console.print(line.text(), soft_wrap=True)
    for knob in result.knobs:
        if knob.conflict_reason:
            _said(console, "conflict", "red", f"{printable(knob.name)}: {knob.conflict_reason}")
    for knob in result.knobs:
        if is_undecided(knob):
            reason = knob.reason or undecided_reason(knob)
            _said(console, "undecided", "yellow", f"{printable(knob.name)}: {reason}")
    if result.dynamic:
        console.print()
        console.print(Text.assemble(("dynamic reads", "bold"), " (name not resolved):"))
        for read in result.dynamic:
            where = f"{read.path}:{read.line}:{read.column}"
            _lines(console, f"{printable(where)}: {printable(read.shown)}", "  ", "      ")
            _lines(console, read.reason, "    ", "    ")
    if result.errors:
        console.print()
        console.print(Text.assemble(("errors", "bold"), " (files skipped):"))
        for error in result.errors:
            text = f"{printable(error.path)}: {printable(error.message)}"
            _lines(console, text, "  ", "    ")
    console.print()
    _lines(console, summary(result), "", "")


def _said(console: Console, label: str, style: str, text: str) -> None:
    """``label`` in its colour, then ``text`` broken to the width under a hanging indent."""
    lines = prose(f"{label} {text}", console.width, rest="    ")
    console.print(Text.assemble((label, style), lines[0][len(label) :]), soft_wrap=True)
    for line in lines[1:]:
        console.print(Text(line), soft_wrap=True)


def _lines(console: Console, text: str, first: str, rest: str) -> None:
    for line in prose(text, console.width, first, rest):
        console.print(Text(line), soft_wrap=True)


def _default(knob: Knob) -> str:
    defaults = sorted({_site_default(s) for s in knob.sites})
    return defaults[0] if len(defaults) == 1 else " | ".join(defaults)


def _site_default(site: Site) -> str:
    """A site's default; one computed at run time as written, marked so."""
    if site.default is None and site.default_computed is not None:
        return f"{printable(site.default_computed)} (computed)"
    return shown(site.default)


def summary(result: ScanResult) -> str:
    """One line: how many knobs, how many on by default (and undecided), what was not
    resolved."""
    on = sum(1 for k in result.knobs if k.default_on)
    undecided = sum(1 for k in result.knobs if is_undecided(k))
    state = f"{on} on by default" + (f", {undecided} undecided" if undecided else "")
    parts = [
        counted(len(result.knobs), "knob") + f" ({state})",
        counted(len(result.dynamic), "dynamic read"),
        counted(len(result.errors), "error"),
    ]
    return ", ".join(parts) + f"; {counted(result.files_scanned, 'file')} scanned."
