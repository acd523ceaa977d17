"""Shell embedded in YAML (a CI step's ``run:``, a GitLab job's ``script:``): the script
put together from its scalars, read by the shell layer, and every position it reports
moved back to the YAML file's line and column.

A literal block (``run: |``) keeps each line where it stands, less the block's indent,
and so does a scalar on one line of the file; a folded block (``>-``) or a plain scalar
over several lines, whose line breaks YAML folds into blanks, is given to the shell as
lines continued by a backslash, each where it stands. The lines of any other scalar (a
fold that keeps a line break, a quoted string over several lines) are placed at the
scalar's start.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

import yaml

from scanner.languages import Language
from scanner.launcher.shell import SCRIPT, TOO_DEEP, analyse_shell
from scanner.model import DynamicRead, FileResult, ScanError, Site, Write
from scanner.settings import Settings

# GitHub Actions expressions, put out of the shell's sight with as many characters.
_EXPRESSION: Final = re.compile(r"\$\{\{.*?\}\}")


@dataclass(frozen=True, slots=True)
class Place:
    """Where a line of the script stands in the YAML file: its 0-based line, and the
    column its first character is at (None: every character is at ``line``, ``start``)."""

    line: int
    offset: int | None
    start: int = 0


@dataclass(frozen=True, slots=True)
class Script:
    """A script put together from YAML scalars, and where each of its lines stands."""

    text: str  # GitHub expressions blanked out (``${{ x }}`` -> ``________``)
    places: tuple[Place, ...]
    function: str  # the key path of the scalars (``jobs.test.steps[2].run``)
    written: str  # the text as written


@dataclass(frozen=True, slots=True)
class Embedded:
    result: FileResult
    error: ScanError | None = None


def script_of(nodes: Sequence[yaml.ScalarNode], source: str, function: str) -> Script:
    """The script the scalars ``nodes`` make, one after another, each on its own lines."""
    texts: list[str] = []
    places: list[Place] = []
    for node in nodes:
        lines, where = _lines(node, source)
        texts.extend(lines)
        places.extend(where)
    written = "\n".join(texts) + "\n"
    blanked = _EXPRESSION.sub(lambda m: "_" * len(m.group()), written)
    return Script(blanked, tuple(places), function, written)


def _lines(node: yaml.ScalarNode, source: str) -> tuple[list[str], list[Place]]:
    """The script lines of one scalar, and where each stands in the file."""
    value = str(node.value)
    lines = value.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    start, end = node.start_mark, node.end_mark
    raw = source[start.index : end.index]
    if node.style == "|":
        body = raw.split("\n")[1:]  # the lines after the block's header
        indent = next((len(b) - len(b.lstrip(" ")) for b in body if b.strip()), 0)
        if len(body) >= len(lines) and all(
            not text or body[i][indent:] == text for i, text in enumerate(lines)
        ):
            return lines, [Place(start.line + 1 + i, indent) for i in range(len(lines))]
    elif start.line == end.line and len(lines) == 1:
        at = raw.find(value)
        if at >= 0:
            return lines, [Place(start.line, start.column + at)]
    elif node.style in (">", None, ""):
        folded = _folded(raw, node)
        if folded is not None:
            return folded
    return lines, [Place(start.line, None, start.column)] * len(lines)


def _folded(raw: str, node: yaml.ScalarNode) -> tuple[list[str], list[Place]] | None:
    """A folded block (``>``) or a plain scalar over several lines, when YAML folded
    every line break into one blank (no empty or more-indented line): its lines, each
    continued with `` \\`` so that the shell reads them as the one line YAML made."""
    start = node.start_mark
    segments = raw.rstrip("\n").split("\n")
    places: list[Place] = []
    texts: list[str] = []
    if node.style == ">":
        segments = segments[1:]
        first = 1
    else:
        texts.append(segments[0].rstrip())
        places.append(Place(start.line, start.column))
        segments = segments[1:]
        first = 1
    for index, segment in enumerate(segments, start=first):
        stripped = segment.lstrip(" ")
        if not stripped.strip():
            return None
        texts.append(stripped.rstrip())
        places.append(Place(start.line + index, len(segment) - len(stripped)))
    if " ".join(texts) != str(node.value).rstrip("\n") or not texts:
        return None
    return [f"{text} \\" for text in texts[:-1]] + texts[-1:], places


def analyse_embedded(rel: str, script: Script, settings: Settings) -> Embedded:
    """The reads, dynamic reads and writes of an embedded script, placed in the YAML
    file; a script the shell grammar cannot read is the file's error, at its place."""
    try:
        shell = analyse_shell(rel, script.text.encode("utf-8"), settings, None)
    except RecursionError:
        return Embedded(FileResult(), ScanError(rel, TOO_DEEP))
    found = shell.result
    result = FileResult(
        sites=tuple(_moved_site(s, script) for s in found.sites),
        dynamic=tuple(_moved_dynamic(d, script) for d in found.dynamic),
        writes=tuple(_moved_write(w, script) for w in found.writes),
    )
    error = None
    if shell.error is not None:
        first = script.places[0]
        error = ScanError(
            rel,
            f"The bash grammar cannot parse the script of {script.function} (from line "
            f"{first.line + 1}); reads in it may be missing or misjudged.",
        )
    return Embedded(result, error)


def place(script: Script, line: int, column: int) -> tuple[int, int]:
    """The YAML file's 1-based line and column of the script's ``line``, ``column``."""
    spot = script.places[min(line, len(script.places)) - 1]
    if spot.offset is None:
        return spot.line + 1, spot.start + 1
    return spot.line + 1, spot.offset + column


def _function(script: Script, function: str) -> str:
    return script.function if function == SCRIPT else f"{script.function}:{function}"


def _moved_site(site: Site, script: Script) -> Site:
    line, column = place(script, site.line, site.column)
    return replace(
        site,
        line=line,
        column=column,
        language=Language.CI,
        function=_function(script, site.function),
    )


def _moved_dynamic(read: DynamicRead, script: Script) -> DynamicRead:
    line, column = place(script, read.line, read.column)
    return replace(read, line=line, column=column, function=_function(script, read.function))


def _moved_write(write: Write, script: Script) -> Write:
    line, column = place(script, write.line, write.column)
    return replace(
        write,
        line=line,
        column=column,
        language=Language.CI,
        function=_function(script, write.function),
    )
