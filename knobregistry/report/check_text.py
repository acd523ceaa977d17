"""The human view of `knobs check`: one line per finding, its fix indented below, a summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knobregistry._text.plural import counted, nonzero
from knobregistry.check.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from rich.console import Console

    from knobregistry.check.run import CheckResult

FIX_INDENT = "    "
_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.NOTE: "bold cyan"}


def summary(result: CheckResult) -> str:
    """The closing line: what was found, and what was checked against what."""
    counts = nonzero(
        (result.count(severity), counted(result.count(severity), severity.value))
        for severity in (Severity.ERROR, Severity.WARNING, Severity.NOTE)
    )
    head = f"Found {counts}" if counts else "No problems"
    scope = (
        f"{counted(result.knobs, 'knob')} in {counted(result.files, 'file')} checked against "
        f"{result.registry} (policy {result.policy.value})"
    )
    line = f"{head}: {scope}."
    if not result.stale_checked:
        line += " Stale entries (KNB002) are not checked when paths are given."
    if result.baseline is not None:
        hidden = counted(result.baselined, "finding")
        line += f" {hidden} hidden by the baseline {result.baseline}."
    return line


def fix_lines(diagnostic: Diagnostic) -> list[str]:
    """The fix, indented under the report line."""
    if not diagnostic.fix:
        return []
    return [FIX_INDENT + line if line else "" for line in diagnostic.fix.splitlines()]


def render_check_text(result: CheckResult) -> str:
    """Plain text, byte-identical between runs."""
    lines: list[str] = []
    for diagnostic in result.diagnostics:
        lines.append(diagnostic.render())
        lines.extend(fix_lines(diagnostic))
    if lines:
        lines.append("")
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def print_check_rich(result: CheckResult, console: Console) -> None:
    """The same lines, styled for a terminal and broken at blanks to its width: a report
    line goes on under a two-blank indent, a sentence of the fix under the fix's; the
    entry to paste is never broken, so that it pastes as it is."""
    from rich.text import Text  # rich only on a terminal: piped output is plain text

    from knobregistry._text.columns import prose

    width = console.width
    for diagnostic in result.diagnostics:
        where = diagnostic.location()
        lines = prose(diagnostic.render(), width, rest="  ")
        first = Text(lines[0])
        first.stylize("bold", 0, len(where))
        label = len(diagnostic.code) + 1 + len(diagnostic.severity.value) + 1  # `KNB001 error:`
        first.stylize(_STYLES[diagnostic.severity], len(where) + 2, len(where) + 2 + label)
        console.print(first, soft_wrap=True)
        for line in lines[1:]:
            console.print(Text(line), soft_wrap=True)
        for fix in _fix_lines_to(diagnostic, width):
            console.print(Text(fix, style="dim"), soft_wrap=True)
    if result.diagnostics:
        console.print()
    style = "bold red" if result.drift else "bold green"
    for line in prose(summary(result), width):
        console.print(Text(line, style=style), soft_wrap=True)


def _fix_lines_to(diagnostic: Diagnostic, width: int) -> list[str]:
    """The fix under the report line: its sentences broken to ``width``, its indented lines
    (an entry to paste, a command) whole."""
    from knobregistry._text.columns import prose

    lines: list[str] = []
    for line in (diagnostic.fix or "").splitlines():
        if not line or line[0].isspace():
            lines.append(FIX_INDENT + line if line else "")
        else:
            lines += prose(line, width, FIX_INDENT, FIX_INDENT)
    return lines
