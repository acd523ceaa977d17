"""Tables that fit a width: every command's columns are laid out here.

A cell breaks only where a reader expects it: at a blank, and in a path after a `/`.
A knob name is never broken or cut: when the names do not fit beside the other
columns, each row's name goes on a line of its own above the row (the stacked
layout), or, when most names fit a narrower column, only the rows whose names do not.
A path too long for its column breaks inside a name, after a `_`, `-` or `.` where it
can, and never loses a character; only a word of prose too long for its column is cut,
with an ellipsis at its end. rich wraps at blanks only and folds a long word anywhere,
which is why the breaking is done here and rich only styles the lines. Lines are laid out
as plain segments: a `Line` gives its plain text for a pipe, and imports rich only
when asked for a terminal's styled text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from rich.text import Text

GAP = "  "
ELLIPSIS = "…"
# Where a path breaks: after a `/`, kept on the first line.
_PATH_PIECE = re.compile(r"[^/]*/|[^/]+")
# Where a name in a path too long for its column breaks: after a `_`, `-` or `.`.
_NAME_PIECE = re.compile(r"[_.-]*[^_.-]+[_.-]?|[_.-]+")
# The narrowest a path column is laid out, though a name in it is longer: such a name
# breaks inside (after `_`) rather than push the table's names onto lines of their own.
PATH_LEAST = 30
# A word of a sentence and the blanks before it, kept as they are within a line.
_WORDS = re.compile(r"( *)([^ ]+)")


class Wrap(Enum):
    """How a column's cells may break."""

    WORDS = "words"  # at blanks; a word too long is cut at its end
    PATH = "path"  # at blanks and after `/`; a piece too long keeps its end
    WHOLE = "whole"  # never: a knob name


@dataclass(frozen=True, slots=True)
class Column:
    """A column's header and how its cells break."""

    header: str
    wrap: Wrap = Wrap.WORDS


Cell: TypeAlias = "str | Text"


@dataclass(frozen=True, slots=True)
class _Styled:
    """A header cell: its text and style, without rich."""

    plain: str
    style: str


_AnyCell: TypeAlias = "str | Text | _Styled"


@dataclass(frozen=True, slots=True)
class Line:
    """A laid-out line: its first text and that text's style, then styled segments."""

    first: str
    style: str = ""
    segments: tuple[tuple[str, str], ...] = ()
    strip: bool = False  # trailing blanks removed (a row's line)

    @property
    def plain(self) -> str:
        """The line as plain text (no rich: for piped output)."""
        text = self.first + "".join(segment for segment, _ in self.segments)
        return text.rstrip() if self.strip else text

    def text(self) -> Text:
        """The line as rich text, styled (for a terminal)."""
        from rich.text import Text

        line = Text(self.first, style=self.style)
        for segment, style in self.segments:
            line.append(segment, style=style)
        if self.strip:
            line.rstrip()
        return line


def _pieces(text: str, wrap: Wrap) -> list[tuple[str, str]]:
    """The unbreakable pieces of ``text``, each with what joins it to the one before."""
    if wrap is Wrap.WHOLE:
        return [("", text)]
    pieces: list[tuple[str, str]] = []
    for word in text.split(" "):
        if not word:
            continue
        parts = _PATH_PIECE.findall(word) if wrap is Wrap.PATH else [word]
        pieces += [(" " if at == 0 else "", part) for at, part in enumerate(parts)]
    return pieces


def _cut(piece: str, width: int, wrap: Wrap) -> str:
    if len(piece) <= width or wrap is Wrap.WHOLE:
        return piece
    if width <= 1:
        return ELLIPSIS[:width]
    return piece[: width - 1] + ELLIPSIS


def _split(piece: str, width: int) -> list[str]:
    """A piece of a path too long for ``width``, in parts that fit: broken after a `_`, `-`
    or `.` (a `:line` kept with what comes before it where it fits, else before it), and
    a part still too long every ``width`` characters."""
    name, colon, line = piece.partition(":")
    names = _NAME_PIECE.findall(name) or [""]
    if colon and len(names[-1]) + 1 + len(line) <= width:
        names[-1] += colon + line  # `name.py:12` whole where it fits
    elif colon:
        names.append(colon + line)
    parts: list[str] = []
    for part in names:
        parts += [part[at : at + width] for at in range(0, len(part), max(width, 1))]
    return [part for part in parts if part]


def _fitted(text: str, width: int, wrap: Wrap) -> list[tuple[str, str]]:
    """The pieces of ``text``, a path's too long for ``width`` split so that none is lost."""
    pieces: list[tuple[str, str]] = []
    for joint, piece in _pieces(text, wrap):
        if wrap is Wrap.PATH and len(piece) > width:
            parts = _split(piece, width)
            pieces += [(joint if at == 0 else "", part) for at, part in enumerate(parts)]
        else:
            pieces.append((joint, _cut(piece, width, wrap)))
    return pieces


def wrap_text(text: str, width: int, wrap: Wrap = Wrap.WORDS) -> list[str]:
    """``text`` broken into lines of at most ``width`` characters (a WHOLE text is one line)."""
    lines: list[str] = []
    line = ""
    for joint, piece in _fitted(text, width, wrap):
        if line and len(line) + len(joint) + len(piece) <= width:
            line += joint + piece
        else:
            if line:
                lines.append(line)
            line = piece
    return [*lines, line] if line or not lines else lines


def least_width(text: str, wrap: Wrap, *, inside: bool = False) -> int:
    """The narrowest width that breaks ``text`` without cutting: its longest piece; with
    ``inside``, a path's at most PATH_LEAST (a longer name then breaks inside)."""
    longest = max((len(piece) for _, piece in _pieces(text, wrap)), default=0)
    return min(longest, PATH_LEAST) if inside and wrap is Wrap.PATH else longest


def fit(
    least: Sequence[int], most: Sequence[int], room: int, cells: Sequence[int] | None = None
) -> list[int] | None:
    """Widths that sum to at most ``room``: from each column's widest, headers wider than
    their cells wrap first (the longest first, down to ``cells``, the widest cell), then
    the widest column gives way a character at a time, none under its least; None when
    even the least do not fit."""
    widths = list(most)
    floor = [max(c, n) for c, n in zip(cells or least, least, strict=True)]
    while sum(widths) > room:
        headers = [i for i, w in enumerate(widths) if w > floor[i]]
        if not headers:
            break
        longest = max(headers, key=lambda i: (widths[i] - floor[i], i))
        widths[longest] = floor[longest]
    while sum(widths) > room:
        shrinkable = [i for i, w in enumerate(widths) if w > least[i]]
        if not shrinkable:
            return None
        widest = max(shrinkable, key=lambda i: (widths[i], i))
        widths[widest] -= 1
    return widths


def _squeeze(least: Sequence[int], wraps: Sequence[Wrap], room: int) -> list[int]:
    """The last resort: widths under the least, words cut with an ellipsis (never under 2,
    never a WHOLE column)."""
    widths = list(least)
    while sum(widths) > room:
        shrinkable = [i for i, w in enumerate(widths) if w > 2 and wraps[i] is not Wrap.WHOLE]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: (widths[i], i))
        widths[widest] -= 1
    return widths


def _plain(cell: _AnyCell) -> str:
    return cell if isinstance(cell, str) else cell.plain


def _style(cell: _AnyCell) -> str:
    return "" if isinstance(cell, str) else str(cell.style)


def _row_lines(
    cells: Sequence[_AnyCell], widths: Sequence[int], wraps: Sequence[Wrap], indent: str
) -> list[Line]:
    broken = [wrap_text(_plain(c), w, wr) for c, w, wr in zip(cells, widths, wraps, strict=True)]
    out: list[Line] = []
    for at in range(max(len(b) for b in broken)):
        segments: list[tuple[str, str]] = []
        for column, (cell, lines, width) in enumerate(zip(cells, broken, widths, strict=True)):
            if column:
                segments.append((GAP, ""))
            text = lines[at] if at < len(lines) else ""
            segments.append((text.ljust(width), _style(cell)))
        out.append(Line(indent, segments=tuple(segments), strip=True))
    return out


def _widths(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell]], room: int, *, stack: bool
) -> list[int] | None:
    """Each column's width in ``room`` characters (gaps counted), or None when a WHOLE
    column leaves the others too little."""
    texts = [[_plain(c) for c in row] for row in rows]

    def least(inside: bool) -> list[int]:
        return [
            max(
                least_width(column.header, Wrap.WORDS),
                *(
                    least_width(t[i], column.wrap, inside=inside)
                    if column.wrap is not Wrap.WHOLE
                    else len(t[i])
                    for t in texts
                ),
            )
            for i, column in enumerate(columns)
        ]

    cells = [max((len(t[i]) for t in texts), default=0) for i in range(len(columns))]
    most = [max(len(c.header), cells[i]) for i, c in enumerate(columns)]
    room -= len(GAP) * (len(columns) - 1)
    # Names in paths whole where they fit; else broken inside, rather than stacked.
    widths = fit(least(False), most, room, cells) or fit(least(True), most, room, cells)
    if widths is None and not (stack and len(columns) > 1 and _name_at(columns) is not None):
        widths = _squeeze(least(True), [c.wrap for c in columns], room)
    return widths


def layout(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    width: int,
    *,
    indent: str = "",
    rule: bool = False,
    header: bool = True,
    header_style: str = "",
) -> list[Line]:
    """The table's lines, header first (unless ``header`` is false; a rule under it when
    asked), each at most ``width`` characters wide but for a name longer than the width:
    ``plain`` text for a pipe, ``text()`` for a terminal (rich, imported then)."""
    widths = _widths(columns, rows, width - len(indent), stack=True)
    if widths is None:
        partial = _partial(columns, rows, width - len(indent))
        if partial is not None:
            inline, widths = partial
            head, body = _lines(columns, inline, widths, indent, rule, header_style)
            at = _name_at(columns) or 0
            offset = indent + " " * (sum(widths[:at]) + len(GAP) * at)
            out = list(head) if header else []
            for row, kept, lines in zip(rows, inline, body, strict=True):
                if kept is not row:  # its name did not fit: on a line of its own, above
                    out.append(Line(offset + _plain(row[at]), _style(row[at])))
                out += lines
            return out
        lines = _stacked(columns, rows, width, indent=indent, rule=rule, header_style=header_style)
        return lines if header else lines[1 + _header_height(columns, rows, width, indent) :]
    head, body = _lines(columns, rows, widths, indent, rule, header_style)
    return [*(head if header else []), *(line for lines in body for line in lines)]


def _partial(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell]], room: int
) -> tuple[list[Sequence[Cell]], list[int]] | None:
    """When most names fit the room the other columns leave: the rows, each whose name is
    longer with its name cell emptied (the name goes above the row), and the widths.
    None when fewer than half the names fit (every row then stacks)."""
    at = _name_at(columns)
    if at is None or len(columns) < 2:
        return None
    texts = [[_plain(c) for c in row] for row in rows]
    others = sum(
        max(
            least_width(c.header, Wrap.WORDS),
            *(least_width(t[i], c.wrap, inside=True) for t in texts),
        )
        for i, c in enumerate(columns)
        if i != at
    )
    name_room = room - len(GAP) * (len(columns) - 1) - others
    fitting = sum(1 for t in texts if len(t[at]) <= name_room)
    if name_room < len(columns[at].header) or 2 * fitting < len(rows):
        return None
    inline = [
        row if len(_plain(row[at])) <= name_room else [*row[:at], "", *row[at + 1 :]]
        for row in rows
    ]
    widths = _widths(columns, inline, room, stack=False)
    return (inline, widths) if widths is not None else None


def _header_height(
    columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int, indent: str
) -> int:
    """How many lines the header of the stacked layout's inner table takes."""
    at = _name_at(columns) or 0
    rest = [*columns[:at], *columns[at + 1 :]]
    others = [[*row[:at], *row[at + 1 :]] for row in rows]
    inner = indent + GAP
    widths = _widths(rest, others, width - len(inner), stack=False) or []
    return max(len(wrap_text(c.header, w)) for c, w in zip(rest, widths, strict=True))


def _lines(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    widths: Sequence[int],
    indent: str,
    rule: bool,
    header_style: str,
) -> tuple[list[Line], list[list[Line]]]:
    """The header's lines, and each row's."""
    headers = [_Styled(c.header, header_style) for c in columns]
    head = _row_lines(headers, widths, [Wrap.WORDS] * len(columns), indent)
    if rule:
        head.append(Line(indent + "─" * (sum(widths) + len(GAP) * (len(widths) - 1))))
    wraps = [c.wrap for c in columns]
    return head, [_row_lines(row, widths, wraps, indent) for row in rows]


def _name_at(columns: Sequence[Column]) -> int | None:
    """The first WHOLE column: the one that stacks."""
    return next((i for i, c in enumerate(columns) if c.wrap is Wrap.WHOLE), None)


def _stacked(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    width: int,
    *,
    indent: str,
    rule: bool,
    header_style: str,
) -> list[Line]:
    """Each row's name (its WHOLE cell) on a line of its own, the rest of the row indented
    under it."""
    at = _name_at(columns) or 0
    inner = indent + GAP
    rest = [*columns[:at], *columns[at + 1 :]]
    others = [[*row[:at], *row[at + 1 :]] for row in rows]
    widths = _widths(rest, others, width - len(inner), stack=False) or []
    head, body = _lines(rest, others, widths, inner, rule, header_style)
    out = [Line(indent + columns[at].header, header_style), *head]
    for row, lines in zip(rows, body, strict=True):
        out.append(Line(indent + _plain(row[at]), _style(row[at])))
        out += lines
    return out


def prose(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """A sentence broken at blanks to ``width``, ``first`` before its first line and
    ``rest`` before the others; a path longer than a line breaks after a `/`, any other
    word longer than a line (a name) stays whole. A line that fits is left as it is."""
    if len(first) + len(text) <= width:
        return [(first + text).rstrip()]
    stripped = text.lstrip(" ")
    first, text = first + text[: len(text) - len(stripped)], stripped
    room = max(width - len(rest), 1)
    pieces: list[tuple[str, str]] = []
    for blanks, word in _WORDS.findall(text):
        parts = _PATH_PIECE.findall(word) if len(word) > room else [word]
        pieces += [(blanks if at == 0 else "", part) for at, part in enumerate(parts)]
    lines: list[str] = []
    line = first
    for joint, piece in pieces:
        if line.strip() and len(line) + len(joint) + len(piece) > width:
            lines.append(line)
            line = rest + piece
        else:
            line += (joint if line.strip() else "") + piece
    lines.append(line.rstrip())
    return lines
