"""Skeletons: blocks of lines that parse as blocks parsed before, up to their names.

Cutting a huge file into statements (``scanner.source.split``) parses it with
``ast`` and walks every statement; in a generated file of 10^5 statements that
differ only in their names, that is most of the time. A block is the lines from
one possible statement start to the next. Its *skeleton* is its text with every
name-like run (``[A-Za-z_][A-Za-z0-9_]*``) replaced, except the runs whose text
the tokenizer looks at:

- keywords and soft keywords (``if``, ``None``, ``match``) and dunders;
- a string's prefix (a run of ``rbuf`` right before a quote); a block with an
  f-string has no skeleton (the text inside its braces is code);
- the part of a number after a digit or a point (``1e5``, ``0x1F``, ``1_000``),
  and so every attribute name too (``os.environ`` is kept whole).

A block with a backslash (an escape could name a character, or continue a line)
or with text beyond ASCII has no skeleton. Between two blocks of one skeleton
only the names and the text of strings differ: the tokenizer gives the same
tokens but for the text of names and strings, so Python parses both into the same
statements, with the same nodes, at the same lines, each name at the same run.
What a block's units are (``Model``) is therefore learned from one parse and
applied to the next block of that skeleton by the text of its runs.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.source.shapes import Spot, Tokens

_RUN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEPT = frozenset({*keyword.kwlist, *keyword.softkwlist})
_QUOTES = frozenset("'\"")
_PREFIXES = frozenset({"r", "u", "b", "f", "br", "rb", "fr", "rf"})
_NUMBER = frozenset("0123456789.")


@dataclass(frozen=True, slots=True)
class Skeleton:
    """A block's text with its replaced runs, and where those runs are."""

    text: str
    runs: tuple[Spot, ...]  # (line index in the block, start, end), in text order


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelUnit:
    """A unit of a block, with every name it holds given as the index of its run."""

    start: int  # line index in the block
    end: int
    context: bool
    bound: tuple[int, ...]
    renamable: tuple[int, ...]
    names: tuple[int, ...]
    strings: tuple[tuple[int, int, int], ...]  # (run, read's line index, read's column)


@dataclass(frozen=True, slots=True)
class Model:
    """The units a block of one skeleton holds, and the runs of the block they came from."""

    units: tuple[ModelUnit, ...]
    runs: tuple[Spot, ...]


def skeleton(block: Sequence[str]) -> Skeleton | None:
    """The skeleton of ``block`` (lines, endings kept); None when it has none."""
    parts: list[str] = []
    runs: list[Spot] = []
    for at, line in enumerate(block):
        if "\\" in line or not line.isascii():
            return None
        last = 0
        for found in _RUN.finditer(line):
            start, end = found.span()
            word = found.group()
            if end < len(line) and line[end] in _QUOTES and word.lower() in _PREFIXES:
                if "f" in word or "F" in word:
                    return None  # maybe an f-string: code inside the string
                continue  # maybe a string's prefix (or a string that holds only it)
            if word in _KEPT or word.startswith("__") or (start and line[start - 1] in _NUMBER):
                continue
            parts += (line[last:start], "\0")
            last = end
            runs.append((at, start, end))
        parts.append(line[last:])
    return Skeleton("".join(parts), tuple(runs))


def learn(
    shape: Skeleton,
    first: int,
    end: int,
    context: bool,
    spots: Sequence[Spot],
    renamed: Sequence[Spot] | None,
    tokens: Tokens,
) -> Model | None:
    """The model of a block that starts at line ``first`` (1-based) and holds one unit,
    to line ``end``: a context unit or not, binding the names written at ``spots``, the
    names a shape may rename written at ``renamed``, with ``tokens``. None when one of
    those names is not one of the block's runs (by position: two runs of one text in
    this block need not be one text in the next)."""
    index = {(first + at, start): (n, stop) for n, (at, start, stop) in enumerate(shape.runs)}

    def run(line: int, start: int, stop: int) -> int:
        found = index.get((line, start))
        if found is None or found[1] != stop:
            raise LookupError
        return found[0]

    if renamed is None:
        return None
    try:
        unit = ModelUnit(
            start=0,
            end=end - first,
            context=context,
            bound=tuple(run(*spot) for spot in spots),
            renamable=tuple(run(*spot) for spot in renamed),
            names=tuple(run(*name[:3]) for name in tokens.names),
            strings=tuple(
                (run(line, start, stop), read_line - first, column)
                for line, start, stop, _, read_line, column in tokens.strings
            ),
        )
    except LookupError:
        return None
    return Model((unit,), shape.runs)


def apply(
    model: Model, shape: Skeleton, block: Sequence[str], first: int
) -> list[tuple[int, int, bool, frozenset[str], Tokens]]:
    """The units (start, end, context, bound names, tokens) of ``block``, which starts at
    line ``first`` and has the model's skeleton."""
    words = [block[at][start:end] for at, start, end in shape.runs]
    found = []
    for unit in model.units:
        names = tuple(
            (first + shape.runs[k][0], shape.runs[k][1], shape.runs[k][2], words[k])
            for k in unit.names
        )
        strings = tuple(
            (
                first + shape.runs[k][0],
                shape.runs[k][1],
                shape.runs[k][2],
                words[k],
                first + line,
                column + _shift(model.runs, shape.runs, line, column - 1),
            )
            for k, line, column in unit.strings
        )
        tokens = Tokens(frozenset(words[k] for k in unit.renamable), names, strings)
        bound = frozenset(words[k] for k in unit.bound)
        found.append((first + unit.start, first + unit.end, unit.context, bound, tokens))
    return found


def _shift(old: Sequence[Spot], new: Sequence[Spot], line: int, column: int) -> int:
    """How far a column of a line moves: the runs before it grew or shrank."""
    moved = 0
    for (at, start, end), (_, new_start, new_end) in zip(old, new, strict=True):
        if at == line and end <= column:
            moved += (new_end - new_start) - (end - start)
    return moved
