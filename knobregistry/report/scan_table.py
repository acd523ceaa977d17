"""The human view of a scan: one table row per knob, then what could not be resolved."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from knobregistry.feature import SWITCHES, is_launch_fact, is_undecided, undecided_reason
from knobregistry.plural import counted
from knobregistry.printable import printable
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


# The table's columns and the narrowest each may get (its longest header word).
COLUMNS = (
    ("knob", 8),
    ("default", 7),
    ("on by default?", 8),
    ("polarity", 8),
    ("role", 4),
    ("off value", 5),
    ("read in", 4),
    ("sites", 8),
)
# Shown only when a launcher of the scan sets some knob.
SET_BY = ("set by", 6)
# With it, on a terminal under WIDE columns, the widths are set here: rich shares out the
# width evenly and then honours min_width, which leaves nine columns past 80 and cut.
NARROWED = {"on by default?": 8, "polarity": 8, "role": 7, "off value": 5, "read in": 5}
SHARED = ("knob", "default", "sites", "set by")  # these share what is left
WIDE = 120


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
    """Print the knob table, dynamic reads, errors and a summary line."""
    if result.knobs:
        table = Table(
            box=box.SIMPLE,
            show_edge=False,
            pad_edge=False,
            collapse_padding=True,
            header_style="bold",
        )
        # No column is ever dropped: each folds (long names, paths) or wraps (headers) to
        # fit, down to 80 columns; min_width keeps every header word and short value whole,
        # and padding collapsed to two blanks between columns leaves them the room.
        setters = any(k.set_by for k in result.knobs)
        widths = _narrow_widths(console.width) if setters and console.width < WIDE else {}
        for header, least in (*COLUMNS, SET_BY) if setters else COLUMNS:
            width = widths.get(header)
            table.add_column(header, overflow="fold", min_width=least, width=width)
        for knob in result.knobs:
            default = _default(knob)
            on = on_by_default(knob)
            if knob.conflict:
                on = f"[red]{on} (conflict)[/red]"
            row = [
                escape(printable(knob.name)),
                escape(default),
                on,
                polarity(knob),
                knob.role.value,
                escape(shown(knob.off_value)),
                layers(knob),
                escape(printable(_sites(knob))),
            ]
            if setters:
                row.append(escape(printable(set_by(knob))))
            table.add_row(*row)
        with console.capture() as captured:
            console.print(table)
        # Rich pads every cell to its column's width; trailing blanks only get in the way.
        console.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))
    for knob in result.knobs:
        if knob.conflict_reason:
            name, reason = escape(printable(knob.name)), escape(knob.conflict_reason)
            console.print(f"[red]conflict[/red] {name}: {reason}")
    for knob in result.knobs:
        if is_undecided(knob):
            reason = escape(knob.reason or undecided_reason(knob))
            console.print(f"[yellow]undecided[/yellow] {escape(printable(knob.name))}: {reason}")
    if result.dynamic:
        console.print("\n[bold]dynamic reads[/bold] (name not resolved):")
        for read in result.dynamic:
            where = f"{read.path}:{read.line}:{read.column}"
            console.print(f"  {escape(printable(where))}: {escape(printable(read.expression))}")
            console.print(f"    {escape(read.reason)}")
    if result.errors:
        console.print("\n[bold]errors[/bold] (files skipped):")
        for error in result.errors:
            console.print(f"  {escape(printable(error.path))}: {escape(printable(error.message))}")
    console.print("\n" + summary(result))


def _narrow_widths(total: int) -> dict[str, int]:
    """Each column's width for the nine columns in ``total`` characters (two blanks
    between columns), no column under its header's longest word."""
    least = dict((*COLUMNS, SET_BY))
    room = total - 2 * len(least) + 2 - sum(NARROWED.values())
    share, extra = divmod(room, len(SHARED))
    shared = {name: max(share + (at < extra), least[name]) for at, name in enumerate(SHARED)}
    return {**NARROWED, **shared}


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
