"""A run's output compared as a stream (stdout, a file): its first differing line or byte,
and how a differing line is shown."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from knobregistry.triage import streams
from knobregistry.triage.model import Run

SHOWN_CHARS = 160


@dataclass(frozen=True, slots=True)
class Output:
    """A run's output at a glance; the file is read again only to find a difference."""

    run: Run
    path: Path
    summary: streams.Summary

    @property
    def has_lines(self) -> bool:
        """Whether the output reads as at least one line of text."""
        return self.summary.size > 0 and self.summary.utf8


def difference(first: Output, other: Output, where: str) -> str | None:
    """Where ``other`` differs from ``first`` (``where`` names the output after "at line
    N"); None when they are equal."""
    if first.summary == other.summary:
        return None
    if first.has_lines or other.has_lines or not first.summary.size or not other.summary.size:
        start, number = 0, 0
        if first.has_lines and other.has_lines:  # skip the equal lines at C speed
            offset = streams.first_different_byte(first.path, other.path) or 0
            start, number = streams.last_line_start(first.path, offset)
        pair = streams.first_different_line(
            _lines(first, start, number), _lines(other, start, number)
        )
        if pair is not None:
            return line_message(pair, where)
        return f"in line endings or the final newline{where}"
    byte = streams.first_different_byte(first.path, other.path)
    return f"at byte {byte}{where} ({first.summary.size} and {other.summary.size} bytes)"


def _lines(output: Output, start: int, number: int) -> Iterator[streams.Line]:
    """The output's lines from byte ``start``; none for a file that is not UTF-8 text."""
    if not output.has_lines:
        return iter(())
    return streams.lines(output.path, start, number)


def line_message(
    pair: tuple[streams.Line | None, streams.Line | None] | None, where: str
) -> str | None:
    """ "at line N{where}: 'a' != 'b'" for the first differing pair; None for no pair."""
    if pair is None:
        return None
    a, b = pair
    shown = a if a is not None else b
    number = shown.number if shown is not None else 0
    return f"at line {number}{where}: {_shown(a)} != {_shown(b)}"


def _shown(line: streams.Line | None) -> str:
    if line is None:
        return "(no line)"
    text = line.text
    if len(text) > SHOWN_CHARS or line.cut:
        text = text[:SHOWN_CHARS] + "..."
    return repr(text)
