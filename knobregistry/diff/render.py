"""`knobs diff` output: aligned text for a terminal, a Markdown table for a pull-request comment."""

from __future__ import annotations

import json

from knobregistry.columns import Column, Wrap, layout, prose
from knobregistry.diff.compare import NOT_REGISTERED, ORDER, Change, KnobChange, KnobDiff, KnobState
from knobregistry.docsgen.render import cell, table
from knobregistry.feature import feature_values
from knobregistry.plural import counted
from scanner import GateKind, Polarity


def _q(value: str) -> str:
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
            how = f" ({_q(feature_off)} turns it off)" if feature_off else ""
            return f"off, so its feature is on{how}"
        return "on, so its feature is off"
    if state.default_on is True:
        how = f"{_q(state.off_value)} turns it off" if state.off_value else "unset turns it off"
        return f"on ({how})"
    if state.default_on is False:
        return f"off ({_q(state.on_value)} turns it on)" if state.on_value else "off"
    return f"value {_q(state.default)}" if state.default is not None else "value"


def _default(row: KnobChange, arrow: str) -> str:
    base, head = row.base, row.head
    if base is None or head is None:
        return describe(head or base)  # type: ignore[arg-type]
    if Change.FLIPPED in row.changes:
        return f"{_short(base)} {arrow} {describe(head)}"
    if Change.DEFAULT in row.changes:
        old = _q(base.default) if base.default is not None else "none"
        new = _q(head.default) if head.default is not None else "none"
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
    if row.base is not None and Change.MOVED in row.changes:
        return f"{', '.join(row.base.files)} {arrow} {', '.join(row.head.files)}"
    return row.head.first


def _counts(diff: KnobDiff) -> str:
    parts = [f"{diff.count(c)} {c.value}" for c in ORDER if diff.count(c)]
    return ", ".join(parts)


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
    rows = [
        [
            ", ".join(c.value for c in row.changes),
            row.name,
            _default(row, "->"),
            _triage(row, "->"),
            _where(row, "->"),
        ]
        for row in diff.rows
    ]
    lines = [*prose(f"{title}: {_counts(diff)}.", width, rest="  "), ""]
    lines += [line.plain for line in layout(TEXT_COLUMNS, rows, width, indent="  ")]
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
    lines += [f"{_counts(diff)} (registry: `{diff.registry}`).", ""]
    rows: list[list[str]] = []
    for row in diff.rows:
        triage = cell(_triage(row, "→"))
        if row.blocking:
            triage = f"**{triage}**"
        rows.append(
            [
                ", ".join(c.value for c in row.changes),
                f"`{row.name}`",
                cell(_default(row, "→")),
                triage,
                f"`{cell(_where(row, '→'))}`",
            ]
        )
    lines += table(["change", "knob", "default", "triage", "where"], rows)
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
