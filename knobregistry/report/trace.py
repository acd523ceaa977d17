"""A trace as a table for people and as the JSON trace file for machines.

Both are sorted and hold no time, process id or temporary path, so the same
reads give the same bytes. Paths under the current folder are shown relative to
it; others stay absolute. A secret-looking variable shows only "set". Names, values
and paths come from the traced program: the table escapes their control characters
(printable, repr), and JSON escapes them itself.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from knobregistry._text.columns import Column, Wrap, layout, prose
from knobregistry._text.plural import counted, nonzero
from knobregistry._text.printable import printable
from knobregistry.trace.catalogued import catalogued
from knobregistry.trace.model import (
    Level,
    Missing,
    MissKind,
    ProfileDifference,
    Read,
    Reconciled,
    Seen,
    Trace,
    TraceSite,
    Unreadable,
)
from knobregistry.trace.python_hook import MAX_NAME, MAX_VALUE, PAIRS
from knobregistry.trace.view import EVERYTHING, View, restrict

VALUE_CHARS = 40
KIND_TEXT = {
    MissKind.SCANNER_MISS: "scanner miss",
    MissKind.DYNAMIC: "dynamic read",
    MissKind.OUTSIDE_SCOPE: "outside the scope",
    MissKind.C_LEVEL: "C-level knob",
}


def display(path: str, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it is under it, else as it is."""
    if not Path(path).is_absolute():
        return path
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith(os.pardir) else Path(relative).as_posix()


def _site(site: TraceSite, cwd: Path) -> dict[str, object]:
    return {"path": display(site.path, cwd), "line": site.line}


STATE_TEXT = {
    Seen.VALUE: "value",
    Seen.UNSET: "unset",
    Seen.WITHHELD: "secret",
    Seen.LONG: "long",
    Seen.OTHERS: "others",
}


def _value(read: Read) -> str | None:
    return "set" if read.seen in (Seen.WITHHELD, Seen.LONG) else read.value


def render_json(
    trace: Trace, reconciled: Reconciled | None, cwd: Path, view: View = EVERYTHING
) -> str:
    """The trace file: one JSON object, keys sorted, two-space indented. Every record,
    unless ``view`` has --only patterns: then the variables they match, and ``only``."""
    if view.only:
        trace, reconciled = restrict(trace, reconciled, view.only)
    document: dict[str, object] = {
        "command": list(trace.command),
        "exit_status": trace.exit_status,
        "levels": {
            "python": "traced",
            "c": "traced" if trace.c_level is None else f"skipped: {trace.c_level}",
        },
        "reads": [
            {
                "name": r.name,
                "level": r.level.value,
                "state": STATE_TEXT[r.seen],
                "value": _value(r),
                "secret": r.seen is Seen.WITHHELD,
                "count": r.count,
                "sites": [_site(s, cwd) for s in r.sites],
            }
            for r in trace.reads
        ],
        "copies": [{**_site(c.site, cwd), "count": c.count} for c in trace.copies],
        "catalogued": [
            {
                "name": c.name,
                "libraries": list(c.libraries),
                "meaning": c.meaning,
                "deterministic": c.deterministic,
                "must_stay_unset": c.must_stay_unset,
                "this_run": list(c.seen),
            }
            for c in catalogued(trace.reads)
        ],
        "registry": reconciled.registry if reconciled else None,
        "still_running": trace.still_running,
        "unreadable": {"files": trace.unreadable.files, "lines": trace.unreadable.lines},
        "unrecorded": trace.unrecorded,
    }
    if reconciled is not None:
        document.update(_reconciled_json(reconciled, cwd))
    if view.only:
        document["only"] = list(view.only)
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _reconciled_json(reconciled: Reconciled, cwd: Path) -> dict[str, object]:
    out: dict[str, object] = {
        "inventory": reconciled.inventory,
        "not_in_inventory": [
            {
                "name": m.name,
                "kind": m.kind.value,
                "levels": [level.value for level in m.levels],
                "registered": m.registered,
                "sites": [_site(s, cwd) for s in m.sites],
            }
            for m in reconciled.missing
        ],
        "resolved_dynamic": [
            {"path": d.path, "line": d.line, "expression": d.expression, "names": list(d.names)}
            for d in reconciled.resolved_dynamic
        ],
        "registered_not_read": [{"name": n.name, "entry": n.entry} for n in reconciled.not_read],
    }
    if reconciled.profile is not None:
        out["profile"] = reconciled.profile
        out["profile_differences"] = [
            {
                "name": d.name,
                "expected": d.expected,
                "found": "set" if d.withheld or d.long else d.found,
                "level": d.level.value,
                "sites": [_site(s, cwd) for s in d.sites],
            }
            for d in reconciled.differences
        ]
        out["profile_unverified"] = list(reconciled.unverified)
    return out


READS = (
    Column("VARIABLE", Wrap.WHOLE),
    Column("LEVEL"),
    Column("VALUE"),
    Column("READS"),
    Column("SITE", Wrap.PATH),
)
STACK = (Column("", Wrap.WHOLE), Column(""))
MISSING = (Column("", Wrap.WHOLE), Column(""), Column(""), Column("", Wrap.PATH))


def render_table(
    trace: Trace, reconciled: Reconciled | None, cwd: Path, view: View, width: int
) -> str:
    """The report for people: the profile's differences, the reads ``view`` shows and a
    line for the others, then each section of the reconcile; each line at most ``width``
    characters but for a name or path longer than a line."""
    lines = _report(trace, reconciled, cwd, view, width)
    fitted = [
        part
        for line in lines
        for part in prose(line, width, rest=" " * (len(line) - len(line.lstrip()) + 2))
    ]
    return "\n".join(fitted) + "\n"


def _report(
    trace: Trace, reconciled: Reconciled | None, cwd: Path, view: View, width: int
) -> list[str]:
    lines = [_headline(trace)]
    if trace.c_level is not None:
        lines.append(f"note: the C level was skipped: {trace.c_level}.")
    if trace.still_running:
        lines.append(
            f"note: {_processes(trace.still_running)} of the tree still ran when the grace "
            "period (--grace) ended; what they read until then is included, later reads are not."
        )
    if trace.unreadable:
        lines.append(_unreadable(trace.unreadable))
    if trace.unrecorded:
        lines.append(
            f"note: counted, not recorded: {counted(trace.unrecorded, 'read')} past the bounds "
            f"a traced process keeps ({PAIRS:,} variable and site pairs, names of "
            f"{MAX_NAME:,} bytes)."
        )
    if reconciled is not None and reconciled.profile is not None:
        lines += _profile_table(reconciled, cwd)
    reads = [r for r in trace.reads if view.shows(r.name)]
    if reads:
        rows = [
            (printable(r.name), r.level.value, _shown_value(r), str(r.count), _first(r.sites, cwd))
            for r in reads
        ]
        lines += _columns(READS, rows, "", width)
    summary = view.summary()
    if summary is not None:
        lines.append(summary)
    labels = catalogued(reads)
    if labels:
        lines.append("Stack settings the run consulted (`knobs catalogue` has their sources):")
        labelled = [(printable(c.name), printable(c.label())) for c in labels]
        lines += _columns(STACK, labelled, "  ", width, header=False)
    if trace.copies:
        first = trace.copies[0].site
        lines.append(
            f"The whole environment was copied or iterated at {counted(len(trace.copies), 'site')} "
            f"(first {_where(first, cwd)}); such copies are not counted as reads."
        )
    if reconciled is None:
        lines.append("No registry: the reads were not reconciled (name one with --registry PATH).")
    else:
        lines += _reconciled_table(reconciled, cwd, view, width)
    return lines


def _unreadable(unreadable: Unreadable) -> str:
    """One line for what the record folder held that was not a record."""
    files = f"{counted(unreadable.files, 'file')} (links, pipes, devices, or too large)"
    lines = (
        f"{counted(unreadable.lines, 'line')} (not records, or fields of a wrong type or length)"
    )
    skipped = nonzero([(unreadable.files, files), (unreadable.lines, lines)])
    return (
        "warning: the record folder held what is no record of the trace (the traced program "
        f"can write there); skipped {skipped}."
    )


def _headline(trace: Trace) -> str:
    python = len(trace.names_at(Level.PYTHON))
    native = len(trace.names_at(Level.C))
    py_processes, c_processes = trace.processes
    return (
        f"knobs trace: exit status {trace.exit_status}; "
        f"{counted(len(trace.names()), 'variable')} read: {python} in Python "
        f"({_processes(py_processes)}), {native} through getenv "
        f"({_processes(c_processes)})."
    )


def _processes(n: int) -> str:
    return f"{n} process" + ("" if n == 1 else "es")


def _reconciled_table(reconciled: Reconciled, cwd: Path, view: View, width: int) -> list[str]:
    lines = [
        f"Against {reconciled.registry} (the static scan of its scope: "
        f"{counted(reconciled.inventory, 'knob')}):"
    ]
    missing = [m for m in reconciled.missing if view.picks(m.name)]
    lines.append(f"  not in the static inventory: {len(missing)}")
    listed = [m for m in missing if m.kind is not MissKind.OUTSIDE_SCOPE and view.shows(m.name)]
    lines += _columns(MISSING, [_missing_row(m, cwd) for m in listed], "    ", width, header=False)
    outside = sum(1 for m in missing if m.kind is MissKind.OUTSIDE_SCOPE)
    if outside:
        above = sum(1 for m in missing if m.kind is MissKind.OUTSIDE_SCOPE and view.shows(m.name))
        where = "in the reads above, and in the JSON trace"
        if above == 0:
            where = "--all lists them in the reads above; all in the JSON trace"
        elif above < outside:
            rest = outside - above
            where = f"{above} in the reads above, {rest} more with --all; all in the JSON trace"
        lines.append(
            f"    and {counted(outside, 'variable')} read only by Python code outside the "
            f"scope (libraries): {where}"
        )
    native = len(missing) - len(listed) - outside
    if native:
        lines.append(
            f"    and {counted(native, 'variable')} read only through getenv (native code), not "
            "listed: --all lists them; all in the JSON trace"
        )
    resolved = [(d, [n for n in d.names if view.picks(n)]) for d in reconciled.resolved_dynamic]
    resolved = [(d, names) for d, names in resolved if names]
    lines.append(f"  dynamic reads the run resolved: {len(resolved)}")
    for d, names in resolved:
        shown = printable(", ".join(names))
        lines.append(f"    {printable(d.path)}:{d.line}  {printable(d.expression)}: {shown}")
    not_read = [n for n in reconciled.not_read if view.picks(n.name)]
    lines.append(f"  registered, never read: {len(not_read)}")
    if not_read:
        lines.append("    " + ", ".join(f"{printable(n.name)} ({n.entry})" for n in not_read))
    return lines


def _profile_table(reconciled: Reconciled, cwd: Path) -> list[str]:
    """The profile's differences, first: what the run got wrong, and why it exits 1."""
    count = counted(len(reconciled.differences), "difference")
    lines = [f"Profile {reconciled.profile}: {count}"]
    lines += [f"  {_difference(d, cwd)}" for d in reconciled.differences]
    if reconciled.unverified:
        lines.append(
            "  not checked (values withheld: secret-looking names, or too long): "
            + printable(", ".join(reconciled.unverified))
        )
    return lines


def _missing_row(missing: Missing, cwd: Path) -> tuple[str, ...]:
    kind = KIND_TEXT[missing.kind]
    if missing.registered is not None:
        kind += f" (registered as {missing.registered})"
    levels = ",".join(level.value for level in missing.levels)
    return (printable(missing.name), levels, kind, _first(missing.sites, cwd))


def _difference(difference: ProfileDifference, cwd: Path) -> str:
    expected = "unset" if difference.expected is None else repr(difference.expected)
    if difference.withheld:
        found = "set (value withheld)"
    elif difference.long:
        found = f"a value over {MAX_VALUE:,} bytes (not kept)"
    else:
        found = "unset" if difference.found is None else repr(difference.found)
    where = ", ".join(_where(s, cwd) for s in difference.sites)
    return (
        f"{printable(difference.name)}: expected {expected}, found {found} "
        f"(read by {difference.level.value} at {where})"
    )


def _shown_value(read: Read) -> str:
    if read.seen is Seen.WITHHELD:
        return "set (secret)"
    if read.seen is Seen.LONG:
        return f"set (over {MAX_VALUE // 1024} KiB)"
    if read.seen is Seen.OTHERS:
        return "other values"
    if read.value is None:
        return "unset"
    text = repr(read.value)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 3] + "..."


def _where(site: TraceSite, cwd: Path) -> str:
    if site.line is None:
        return printable(Path(site.path).name or site.path)
    return f"{printable(display(site.path, cwd))}:{site.line}"


def _first(sites: Sequence[TraceSite], cwd: Path) -> str:
    if not sites:
        return ""
    more = f" (+{len(sites) - 1} more)" if len(sites) > 1 else ""
    return _where(sites[0], cwd) + more


def _columns(
    columns: tuple[Column, ...],
    rows: Sequence[tuple[str, ...]],
    indent: str,
    width: int,
    *,
    header: bool = True,
) -> list[str]:
    if not rows:
        return []
    return [line.plain for line in layout(columns, rows, width, indent=indent, header=header)]
