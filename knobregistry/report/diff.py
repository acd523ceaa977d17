"""`knobs diff` output: aligned text for a terminal, a Markdown table for a pull-request comment."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence

from knobregistry._text.columns import Column, Wrap, layout, prose
from knobregistry._text.plural import counted
from knobregistry.diff.compare import NOT_REGISTERED, ORDER, Change, KnobChange, KnobDiff, KnobState
from knobregistry.docsgen.render import cell, table
from knobregistry.project.fingerprints import UnitChange
from knobregistry.registry.feature import feature_values
from scanner import GateKind, Polarity


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _short(state: KnobState) -> str:
    if state.undecided:
        return "undecided"
    if state.kind is GateKind.LAUNCH:
        return "launch fact"
    return {True: "on", False: "off", None: "value"}[state.default_on]


def describe(state: KnobState) -> str:
    """`on ("0" turns it off)`, `off ("1" turns it on)`, `value "64"`; a disable knob says
    what it does to its feature."""
    if state.undecided or state.kind is GateKind.LAUNCH:
        return _short(state)
    if state.polarity is Polarity.DISABLE and state.default_on is not None:
        feature_off, _ = feature_values(state.off_value, state.on_value, state.polarity)
        if state.default_on is False:
            how = f" ({_quoted(feature_off)} turns it off)" if feature_off else ""
            return f"off, so its feature is on{how}"
        return "on, so its feature is off"
    if state.default_on is True:
        how = (
            f"{_quoted(state.off_value)} turns it off" if state.off_value else "unset turns it off"
        )
        return f"on ({how})"
    if state.default_on is False:
        return f"off ({_quoted(state.on_value)} turns it on)" if state.on_value else "off"
    return f"value {_quoted(state.default)}" if state.default is not None else "value"


def _default(row: KnobChange, arrow: str) -> str:
    base, head = row.base, row.head
    if base is None or head is None:
        return describe(head or base)  # type: ignore[arg-type]
    if Change.FLIPPED in row.changes:
        return f"{_short(base)} {arrow} {describe(head)}"
    if Change.DEFAULT in row.changes:
        old = _quoted(base.default) if base.default is not None else "none"
        new = _quoted(head.default) if head.default is not None else "none"
        return f"{old} {arrow} {new} ({_short(head)})"
    return describe(head)


def _triage(row: KnobChange, arrow: str) -> str:
    if row.head is None:
        return row.base.triage if row.base is not None else ""
    if row.base is not None and row.base.triage != row.head.triage:
        return f"{row.base.triage} {arrow} {row.head.triage}"
    return row.head.triage


def _where(row: KnobChange, arrow: str) -> str:
    if row.head is None:
        return row.base.first if row.base is not None else ""
    if row.changes[0] is Change.CODE and row.code is not None:
        return ", ".join(_unit_where(u) for u in row.code.units)
    if row.base is not None and Change.MOVED in row.changes:
        return f"{', '.join(row.base.files)} {arrow} {', '.join(row.head.files)}"
    if row.base is not None and Change.WIDER in row.changes:
        added = [f for f in row.head.files if f not in row.base.files]
        return f"{', '.join(row.base.files)}, now also {', '.join(added)}"
    if row.base is not None and Change.NARROWER in row.changes:
        gone = [f for f in row.base.files if f not in row.head.files]
        return f"{', '.join(row.head.files)}, no longer {', '.join(gone)}"
    return row.head.first


def _unit_where(unit: UnitChange) -> str:
    return f"{unit.path}:{unit.line}" if unit.line is not None else f"{unit.path} (gone)"


def _code_rows(diff: KnobDiff) -> list[KnobChange]:
    return [row for row in diff.rows if row.code is not None]


def _more_or_fewer(n: int, word: str) -> str:
    """`read in one more file`, `read in 3 fewer files`."""
    return f"read in one {word} file" if n == 1 else f"read in {n} {word} files"


def _change(row: KnobChange) -> str:
    """The row's changes in words: `moved`, `read in one more file`, `flipped, retriaged`."""
    words = []
    for change in row.changes:
        if change in (Change.WIDER, Change.NARROWER) and row.base and row.head:
            difference = len(row.head.files) - len(row.base.files)
            word = "more" if change is Change.WIDER else "fewer"
            words.append(_more_or_fewer(abs(difference), word))
        else:
            words.append(change.value)
    return ", ".join(words)


def _counts(diff: KnobDiff) -> str:
    parts = [
        f"{diff.count(c)} {'with changed code' if c is Change.CODE else c.value}"
        for c in ORDER
        if diff.count(c)
    ]
    if diff.first_registered:
        parts.append(f"{len(diff.first_registered)} registered for the first time")
    return ", ".join(parts)


def _by_triage(rows: Sequence[KnobChange]) -> dict[str, list[str]]:
    """The names of ``rows``, by their triage status in HEAD's registry, statuses sorted."""
    groups: dict[str, list[str]] = {}
    for row in rows:
        assert row.head is not None
        groups.setdefault(row.head.triage, []).append(row.name)
    return {status: sorted(groups[status]) for status in sorted(groups)}


def _first_registered_text(diff: KnobDiff, width: int) -> list[str]:
    """One line for the knobs registered for the first time, then their names by status."""
    rows = diff.first_registered
    if not rows:
        return []
    groups = _by_triage(rows)
    lines = prose(
        f"{counted(len(rows), 'knob')} registered for the first time (not registered at "
        f"{diff.base}): {', '.join(f'{len(n)} {s}' for s, n in groups.items())}.",
        width,
        first="  ",
        rest="    ",
    )
    for status, names in groups.items():
        lines += textwrap.wrap(
            ", ".join(names),
            width=width,
            initial_indent=f"    {status}: ",
            subsequent_indent="      ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    return lines


def _blocking_sentence(row: KnobChange, code: str = "") -> str:
    assert row.head is not None
    state = "undecided by the scan" if row.head.undecided else "on by default"
    how = f"is new, {state}" if Change.ADDED in row.changes else f"is now {state}"
    where = f"{code}{row.head.first}{code}"
    return f"{code}{row.name}{code} {how} and {row.head.triage} ({where})"


# The text table's columns: the knob whole (rows stack when names are too long for the
# width), paths break after a `/`, the rest at blanks.
TEXT_COLUMNS = (
    Column("change"),
    Column("knob", Wrap.WHOLE),
    Column("default"),
    Column("triage"),
    Column("where", Wrap.PATH),
)


def render_diff_text(diff: KnobDiff, width: int) -> str:
    """The rows as aligned columns, then one error line per blocking knob, each line at
    most ``width`` characters but for a name or path longer than a line."""
    title = f"Knob changes from {diff.base} to {diff.head} ({diff.registry})"
    if not diff.rows:
        return "\n".join(prose(f"{title}: none.", width, rest="  ")) + "\n"
    lines = [*prose(f"{title}: {_counts(diff)}.", width, rest="  "), ""]
    if diff.listed:
        rows = [
            [_change(row), row.name, _default(row, "->"), _triage(row, "->"), _where(row, "->")]
            for row in diff.listed
        ]
        lines += [line.plain for line in layout(TEXT_COLUMNS, rows, width, indent="  ")]
    if diff.listed and diff.first_registered:
        lines.append("")
    lines += _first_registered_text(diff, width)
    if _code_rows(diff):
        lines.append("")
    for row in _code_rows(diff):
        assert row.code is not None
        lines += prose(f"{row.code.sentence(row.name)}.", width, rest="  ")
    if diff.blocking:
        lines.append("")
    for row in diff.blocking:
        assert row.head is not None
        action = f"triage it in {diff.registry} before merging"
        if row.head.triage == NOT_REGISTERED:
            action = f"register and {action}; `knobs check` prints the entry to paste"
        lines += prose(f"error: {_blocking_sentence(row)}: {action}.", width, rest="  ")
    return "\n".join(lines) + "\n"


def render_diff_markdown(diff: KnobDiff) -> str:
    """A heading, a table, and what blocks the merge: fit for a pull-request comment."""
    lines = [f"### Knob changes from `{diff.base}` to `{diff.head}`", ""]
    if not diff.rows:
        lines.append("No knob is added, removed, flipped or moved.")
        return "\n".join(lines) + "\n"
    lines += [f"{_counts(diff)} (registry: `{diff.registry}`)."]
    rows: list[list[str]] = []
    for row in diff.listed:
        triage = cell(_triage(row, "→"))
        if row.blocking:
            triage = f"**{triage}**"
        rows.append(
            [
                _change(row),
                f"`{row.name}`",
                cell(_default(row, "→")),
                triage,
                f"`{cell(_where(row, '→'))}`",
            ]
        )
    if rows:
        lines += ["", *table(["change", "knob", "default", "triage", "where"], rows)]
    lines += _first_registered_markdown(diff)
    if _code_rows(diff):
        lines += ["", "**The code a triage was measured on changed:**", ""]
    for row in _code_rows(diff):
        assert row.code is not None
        lines.append(f"- {row.code.sentence(row.name, '`')}.")
    blocking = diff.blocking
    if blocking:
        count = counted(len(blocking), "knob")
        state = "on by default"
        if any(row.head is not None and row.head.undecided for row in blocking):
            state += " or undecided"
        lines += ["", f"**Blocks the merge: {count} {state} and not triaged.**", ""]
        lines += [f"- {_blocking_sentence(row, '`')}." for row in blocking]
        lines += [
            "",
            f"Triage each in `{diff.registry}` before merging; for a knob not registered yet, "
            "`knobs check` prints the entry to paste.",
        ]
    return "\n".join(lines) + "\n"


def _first_registered_markdown(diff: KnobDiff) -> list[str]:
    """The first registrations as one line, their names folded under it."""
    rows = diff.first_registered
    if not rows:
        return []
    groups = _by_triage(rows)
    counts = ", ".join(f"{len(names)} {status}" for status, names in groups.items())
    lines = [
        "",
        f"**{counted(len(rows), 'knob')} registered for the first time** (not registered at "
        f"`{diff.base}`): {counts}.",
        "",
        "<details><summary>Their names</summary>",
        "",
    ]
    lines += [
        f"- {status}: {', '.join(f'`{name}`' for name in names)}"
        for status, names in groups.items()
    ]
    return [*lines, "", "</details>"]
