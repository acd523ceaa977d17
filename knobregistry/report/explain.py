"""The view of `knobs explain`: the registry entry, then every site with its code.

Every line goes through printable: an escape sequence in the registry or the code is
shown as text, never sent to the terminal. A line break in a registry field starts an
indented line of that field; inside a part of a field (an evidence item, a profile's
setting) it is shown as `\\n`, so that no part can pose as another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry._text.columns import ELLIPSIS, prose
from knobregistry._text.plural import counted
from knobregistry._text.printable import printable
from knobregistry.explain.explanation import Explanation, Setter, SiteContext
from knobregistry.registry import Evidence, KnobEntry
from knobregistry.registry.feature import feature_on_by_default
from knobregistry.registry.yaml_format import gate_summary, quoted
from scanner import GateKind, Knob, Polarity, Site
from scanner.conventions import ON_WORDS

if TYPE_CHECKING:
    from rich.console import Console

LABEL = 11  # width of the field labels
MAX_VALUES = 8  # off values listed per site


def _field(label: str, value: str) -> list[str]:
    lines = [printable(line) for line in value.splitlines()] or [""]
    out = [f"  {label:<{LABEL}}{lines[0]}"]
    out.extend(f"  {'':<{LABEL}}{line}" for line in lines[1:])
    return out


def _evidence(evidence: Evidence) -> str:
    parts = [
        f"{label}: {printable(value)}"
        for label, value in (
            ("hardware", evidence.hardware),
            ("setup", evidence.setup),
            ("date", evidence.date.isoformat() if evidence.date else None),
            ("compared", evidence.compare),
            ("source", evidence.source),
            ("notes", evidence.notes),
        )
        if value
    ]
    if evidence.records:
        last = evidence.records[-1]
        parts.append(
            f"records: {len(evidence.records)} (latest {last.date.isoformat()}: "
            f"{last.verdict.value})"
        )
        located = [r for r in evidence.records if r.diverges]
        if located:
            latest = located[-1]
            parts.append(
                f"diverges: {printable(latest.diverges or '')}, recorded "
                f"{latest.date.isoformat()} with {printable(latest.compare or '-')}"
            )
    return "\n".join(parts) or "-"


def _role(entry: KnobEntry | None, knob: Knob | None) -> str | None:
    """The registry's role (and a proposal's evidence), else the scan's proposal."""
    if entry is not None and entry.role is not None:
        proposed = f" (proposed: {entry.role_reason})" if entry.role_proposed else ""
        return entry.role.value + proposed
    if knob is not None:
        return f"not stated; the scan proposes {knob.role.value}: {knob.role_reason}"
    return None


def _entry_fields(entry: KnobEntry, knob: Knob | None) -> list[str]:
    lines: list[str] = []
    if entry.gates is not None:
        passes = f", pass {entry.gates.pass_.value}" if entry.gates.pass_ else ""
        lines += _field("gates", entry.gates.kernel + passes)
    default = quoted(entry.default) if entry.default is not None else "not stated"
    if entry.default_on is not None:
        default += ", on by default" if entry.default_on else ", off by default"
    lines += _field("default", default)
    if entry.undecided is not None:
        lines += _field("undecided", entry.undecided)
    if entry.launched_on is not None:
        lines += _field("launcher", entry.launched_on)
    if entry.polarity is not None:
        lines += _field("polarity", _polarity(entry.polarity, entry.default_on))
    role = _role(entry, knob)
    if role is not None:
        lines += _field("role", role)
    triage = entry.triage.value
    if entry.breaks is not None:
        triage += f" (in {entry.breaks.value})"
    if entry.reason:
        triage += f": {entry.reason}"
    if entry.expires:
        triage += f" (until {entry.expires.isoformat()})"
    lines += _field("triage", triage)
    lines += _field("evidence", _evidence(entry.evidence) if entry.evidence else "-")
    lines += _field("cost", entry.cost or "-")
    if entry.measured is not None:
        lines += _field("measured", entry.measured.render())
    lines += _field("owner", entry.owner or "-")
    if entry.notes:
        lines += _field("notes", entry.notes)
    return lines


def header_lines(explanation: Explanation) -> list[str]:
    """The knob's registry side: entry, external entry, or why it is missing."""
    lines = [printable(explanation.name)]
    where = explanation.registry
    if explanation.position is not None:
        where += ":{}:{}".format(*explanation.position)
    if explanation.entry is not None:
        lines += _field("registry", where)
        lines += _entry_fields(explanation.entry, explanation.knob)
    elif explanation.external is not None:
        external = explanation.external
        lines += _field("registry", f"{where} (external: read by a library)")
        lines += _field("what", external.description)
        for label, value in (
            ("library", external.library),
            ("default", quoted(external.default) if external.default is not None else None),
            ("set by", external.set_by),
            (
                "implied by",
                " and ".join(f"{n}={v}" for n, v in external.implied_by) or None,
            ),
            ("cost", external.cost),
            ("notes", external.notes),
        ):
            if value:
                lines += _field(label, value)
    else:
        state = "the policy requires it" if explanation.required else "the policy allows that"
        lines += _field("registry", f"not registered in {where} ({state})")
        role = _role(None, explanation.knob)
        if role is not None:
            lines += _field("role", role)
    settings = [printable(f"{p.profile}: {p.setting}") for p in explanation.profiles]
    lines += _field("profiles", "\n".join(settings) or "none sets it")
    return lines


def _polarity(polarity: Polarity, default_on: bool | None) -> str:
    """`disable: turning it on turns its feature off (on by default)` and the like."""
    does = "on" if polarity is Polarity.ENABLE else "off"
    text = f"{polarity.value}: turning it on turns its feature {does}"
    feature = feature_on_by_default(default_on, polarity)
    if feature is None:
        return text
    return text + (" (the feature is on by default)" if feature else " (off by default)")


def verdict(site: Site) -> str:
    """The gate verdict of one site: default, on by default?, polarity, what turns it off."""
    if site.default is not None:
        parts = [f"default {quoted(site.default)}"]
    elif site.default_computed is not None:
        parts = [f"default computed when it runs: {site.default_computed} (not known)"]
    else:
        parts = ["no default"]
    gate = site.gate
    if gate.kind is GateKind.VALUE:
        parts.append("a value (no on/off)")
    elif gate.kind is GateKind.LAUNCH:
        parts.append("a launch fact (set by the launcher, not a switch)")
    elif gate.kind is GateKind.UNKNOWN:
        parts.append(f"on by default: ? ({site.reason or 'undecided'})")
    else:
        parts.append("on by default: " + _on_by_default(site))
        parts.append(f"polarity {site.polarity.value}")
        parts.append(_turned_off(site))
    if site.via:
        parts.append(f"via {site.via}")
    return printable("; ".join(parts))


def _on_by_default(site: Site) -> str:
    """``yes``, ``no``, or, where unset leaves the choice to the code, ``?`` and why."""
    if site.default_on is None:
        return f"? ({site.reason or 'the code decides when it is unset'})"
    return "yes" if site.default_on else "no"


def _turned_off(site: Site) -> str:
    """The values that turn a switch site off; for a gate that one value turns on
    (``== "1"``), that value: every other one turns it off."""
    gate = site.gate
    if not gate.off_values:
        return "turned off only by unsetting it"
    if gate.on_values and any(v in ON_WORDS for v in gate.off_values):
        shown = ", ".join(quoted(v) for v in gate.on_values[:MAX_VALUES])
        return f"turned on only by {shown}: any other value turns it off"
    shown = ", ".join(quoted(v) for v in gate.off_values[:MAX_VALUES])
    more = len(gate.off_values) - MAX_VALUES
    return "turned off by " + shown + (f" and {more} more" if more > 0 else "")


def _sites_intro(explanation: Explanation) -> str:
    knob = explanation.knob
    if knob is None:
        return "No code in the scan scope reads it."
    count = len(knob.sites)
    head = f"Read at {counted(count, 'site')}"
    tail = f"; conflict: {knob.conflict_reason}" if knob.conflict_reason else ""
    return printable(f"{head}: {gate_summary(knob)}{tail}.")


def setter_lines(explanation: Explanation) -> list[str]:
    """The launcher writes that set the knob, each with its value (or that it is computed
    and so not known) and the condition it sits under; empty when none does."""
    if not explanation.set_by:
        return []
    lines = [f"Set by {counted(len(explanation.set_by), 'launcher write')}:"]
    for setter in explanation.set_by:
        lines += _setter(setter)
    return lines


def _setter(setter: Setter) -> list[str]:
    write = setter.write
    if write.value is not None:
        value = " " + quoted(write.value)
    elif write.computed is not None:
        value = f", computed when it runs: {write.computed} (its value is not known)"
    else:
        value = ", a value not known"
    head = f"  {setter.path}:{write.line}:{write.column}: {write.kind.value}{value}"
    lines = [printable(head)]
    if write.condition:
        lines.append(printable(f"    when {write.condition}"))
    return lines


def _site_head(context: SiteContext) -> str:
    site = context.site
    return printable(f"{context.path}:{site.line}:{site.column} (in {site.function})")


def _code(text: str) -> str:
    """A line of code as shown: tabs expanded, other control characters escaped."""
    return printable(text.expandtabs())


def _fitted(lines: list[str], width: int, rest: str) -> list[str]:
    """``lines`` broken at blanks to ``width``, each going on under ``rest``."""
    return [part for line in lines for part in (prose(line, width, rest=rest) if line else [""])]


def _code_line(line: str, width: int) -> str:
    """A line of code cut with an ellipsis at ``width``: the file holds it whole."""
    return line if len(line) <= width else line[: width - 1] + ELLIPSIS


def render_explain_text(explanation: Explanation, width: int) -> str:
    """Plain text, with the code around each site and a marker on its line, each line at
    most ``width`` characters but for a word (a name, a path) longer than a line."""
    header = header_lines(explanation)
    lines = [header[0], *_fitted(header[1:], width, " " * (2 + LABEL))]
    setters = setter_lines(explanation)
    if setters:
        lines += ["", *_fitted(setters, width, "      ")]
    lines += ["", *_fitted([_sites_intro(explanation)], width, "  ")]
    digits = max((len(str(n)) for c in explanation.sites for n, _ in c.lines), default=1)
    for context in explanation.sites:
        lines += ["", *_fitted([_site_head(context)], width, "  ")]
        lines += _fitted([f"  {verdict(context.site)}"], width, "    ")
        for number, text in context.lines:
            mark = ">" if number == context.site.line else " "
            lines.append(_code_line(f"  {mark} {number:>{digits}} | {_code(text)}".rstrip(), width))
    return "\n".join(lines) + "\n"


def print_explain_rich(explanation: Explanation, console: Console) -> None:
    """The same, styled, with highlighted code (cut at the console's width)."""
    from rich.syntax import Syntax  # rich (and pygments) only on a terminal
    from rich.text import Text

    width = console.width
    header = header_lines(explanation)
    console.print(Text(header[0], style="bold"), soft_wrap=True)
    for line in _fitted(header[1:], width, " " * (2 + LABEL)):
        console.print(Text(line), soft_wrap=True)
    setters = setter_lines(explanation)
    if setters:
        console.print()
        console.print(Text(setters[0], style="bold"), soft_wrap=True)
        for line in _fitted(setters[1:], width, "      "):
            console.print(Text(line), soft_wrap=True)
    console.print()
    for line in _fitted([_sites_intro(explanation)], width, "  "):
        console.print(Text(line), soft_wrap=True)
    for context in explanation.sites:
        console.print()
        for line in _fitted([_site_head(context)], width, "  "):
            console.print(Text(line, style="bold"), soft_wrap=True)
        for line in _fitted([f"  {verdict(context.site)}"], width, "    "):
            console.print(Text(line, style="dim"), soft_wrap=True)
        if context.lines:
            code = "\n".join(_code(text) for _, text in context.lines)
            console.print(
                Syntax(
                    code,
                    "python",
                    line_numbers=True,
                    start_line=context.lines[0][0],
                    highlight_lines={context.site.line},
                )
            )
