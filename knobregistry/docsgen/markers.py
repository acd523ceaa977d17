"""The marker comments of a generated doc: where each block begins and ends.

    <!-- knobs:registry ../registry.yaml -->     (optional: the registry, relative to the doc)
    <!-- knobs:begin knobs -->                   (a block: knobs, external or profile:NAME)
    ...generated...
    <!-- knobs:end knobs -->

Markers stand alone on their line. Lines inside fenced code are not markers, so a
doc can show them as examples, and a generated block (whose recipes are fenced, each fence
longer than any run of backquotes inside) never ends early, whatever its values hold.

A line ends at `\n` (or `\r\n`) only: U+2028, U+2029, NEL, form feed and a lone `\r`
are characters of the line, so the text around the blocks is written back byte for byte,
each line with the ending it had.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MARKER = re.compile(r"<!--\s*knobs:(begin|end|registry)\b(.*?)-->\Z")
_FENCE = re.compile(r"(`{3,}|~{3,})")
_PROFILE = re.compile(r"profile:([a-z][a-z0-9_-]*)\Z")
_CODES = re.compile(r"codes:KNB\d{0,3}\Z")  # the table of check codes with this prefix
BLOCK_NAMES = ("knobs", "external")


@dataclass(frozen=True, slots=True)
class Block:
    """A generated block: its name and the indexes (0-based) of its two marker lines."""

    name: str
    begin: int
    end: int

    @property
    def profile(self) -> str | None:
        """The profile a `profile:NAME` block renders; None for the other blocks."""
        found = _PROFILE.match(self.name)
        return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class MarkerProblem:
    """A marker that cannot be used, at a 1-based line."""

    line: int
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Parsed:
    """A doc's lines, its blocks, its registry marker and the problems with its markers."""

    lines: tuple[str, ...]  # without their endings
    endings: tuple[str, ...]  # each line's own: `\n`, `\r\n`, or "" for a last line without
    blocks: tuple[Block, ...]
    registry: str | None  # the path the registry marker names
    registry_line: int | None  # its 0-based index
    problems: tuple[MarkerProblem, ...]
    open_fence: int | None = None  # 0-based line of a fence the text never closes

    @property
    def eol(self) -> str:
        """The doc's line ending, for the lines written into it: its first line's."""
        return next((ending for ending in self.endings if ending), "\n")

    def text(self, lines: list[str], endings: list[str]) -> str:
        """``lines`` with ``endings`` joined, the last line ended too."""
        if endings and not endings[-1]:
            endings = [*endings[:-1], self.eol]
        return "".join(line + ending for line, ending in zip(lines, endings, strict=True))


def split_lines(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``text``'s lines and their endings: a line ends at `\n` or `\r\n`, and at nothing
    else (a Markdown file's text keeps its U+2028, form feeds and lone `\r`)."""
    pieces = text.split("\n")
    lines: list[str] = []
    endings: list[str] = []
    for piece in pieces[:-1]:
        crlf = piece.endswith("\r")
        lines.append(piece[:-1] if crlf else piece)
        endings.append("\r\n" if crlf else "\n")
    if pieces[-1]:
        lines.append(pieces[-1])
        endings.append("")
    return tuple(lines), tuple(endings)


def valid_name(name: str) -> bool:
    return name in BLOCK_NAMES or any(p.match(name) is not None for p in (_PROFILE, _CODES))


def has_markers(text: str) -> bool:
    """A cheap test before parsing: could ``text`` hold a marker at all?"""
    return any(f"knobs:{kind}" in text for kind in ("begin", "end", "registry"))


def parse(text: str) -> Parsed:
    """Find the blocks and the registry marker of ``text``."""
    lines, endings = split_lines(text)
    blocks: list[Block] = []
    problems: list[MarkerProblem] = []
    registry: str | None = None
    registry_line: int | None = None
    open_at: int | None = None
    open_name = ""
    fences = _Fences()
    for index, raw in enumerate(lines):
        line = raw.strip(" \t")
        if fences.hides(index, line):
            continue
        found = _MARKER.match(line)
        if found is None:
            continue
        kind, argument = found.group(1), found.group(2).strip()
        if kind == "registry":
            if registry is not None:
                problems.append(MarkerProblem(index + 1, "a second knobs:registry marker."))
            elif not argument:
                problems.append(MarkerProblem(index + 1, "knobs:registry names no file."))
            else:
                registry, registry_line = argument, index
        elif kind == "begin":
            if open_at is not None:
                problems.append(_unclosed(open_at, open_name, index))
            open_at, open_name = index, argument
        elif open_at is None:
            problems.append(
                MarkerProblem(index + 1, f"knobs:end {argument} closes no knobs:begin.")
            )
        elif argument != open_name:
            problems.append(
                MarkerProblem(index + 1, f"knobs:end {argument} closes knobs:begin {open_name}.")
            )
            open_at = None
        else:
            blocks.append(_block(open_name, open_at, index, problems))
            open_at = None
    if open_at is not None:
        problems.append(_unclosed(open_at, open_name, len(lines)))
    problems.extend(fences.problems())
    valid = tuple(b for b in blocks if valid_name(b.name))
    return Parsed(
        lines=lines,
        endings=endings,
        blocks=valid,
        registry=registry,
        registry_line=registry_line,
        problems=tuple(problems),
        open_fence=fences.open_at,
    )


class _Fences:
    """Which lines are fenced code, and a fence left open over a marker."""

    def __init__(self) -> None:
        self.mark: str | None = None
        self.open_at: int | None = None  # 0-based line of the open fence
        self.hidden: int | None = None  # a marker line inside it

    def hides(self, index: int, line: str) -> bool:
        """Whether ``line`` is a fence or fenced code (a marker there is an example)."""
        mark = fence_after(line, self.mark)
        if mark is None:
            closing = self.mark is not None
            self.mark, self.open_at, self.hidden = None, None, None
            return closing
        if self.mark is None:
            self.mark, self.open_at = mark, index
        elif self.hidden is None and _MARKER.match(line):
            self.hidden = index
        return True

    def problems(self) -> list[MarkerProblem]:
        """A fence never closed that hides a marker: its block would be read as code."""
        if self.open_at is None or self.hidden is None:
            return []
        return [
            MarkerProblem(
                self.open_at + 1,
                "the fenced code opened on this line is never closed, so the marker on line "
                f"{self.hidden + 1} is read as code; close the fence.",
            )
        ]


def fence_after(line: str, fence: str | None) -> str | None:
    """The fence open after ``line`` (None when outside fenced code)."""
    found = _FENCE.match(line)
    if found is None:
        return fence
    mark = found.group(1)
    if fence is None:
        return mark
    if mark[0] == fence[0] and len(mark) >= len(fence) and line == mark:
        return None
    return fence


def _block(name: str, begin: int, end: int, problems: list[MarkerProblem]) -> Block:
    if not name:
        problems.append(MarkerProblem(begin + 1, "knobs:begin names no block."))
    elif not valid_name(name):
        problems.append(
            MarkerProblem(
                begin + 1,
                f"knobs:begin {name} names no block; the blocks are knobs, external and "
                "profile:NAME.",
            )
        )
    return Block(name, begin, end)


def _unclosed(begin: int, name: str, before: int) -> MarkerProblem:
    label = f"knobs:begin {name}".rstrip()
    return MarkerProblem(
        begin + 1, f"{label} has no matching `<!-- knobs:end {name} -->` after it."
    )
