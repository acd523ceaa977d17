"""Dockerfiles: ``ENV`` sets the environment of the image's every run (writes with their
values), ``ARG`` reads a build argument that ``docker build --build-arg`` gives, with
its default (reads).

Instructions are read as Docker's parser reads them: case-insensitive, continued by a
trailing backslash (or the escape character a ``# escape=`` directive names), comment
lines dropped even inside a continuation, the lines of a here-document (``RUN <<EOF``)
skipped. ``ENV A=1 B="x y"`` and the older
``ENV A 1`` form are both writes; a value that expands another variable (``$PATH``,
``${HOME}/bin``) has no value a reader of the file can state (None). ``ARG A=1 B``
declares several; the platform arguments BuildKit sets itself (``TARGETARCH``) are facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from scanner.conventions import is_launch_fact
from scanner.languages import Language
from scanner.launcher.config_verdict import judge
from scanner.model import (
    LAUNCH_GATE,
    FileResult,
    LauncherRead,
    ReadKind,
    Site,
    Write,
    WriteKind,
)
from scanner.patterns import matches
from scanner.settings import Settings

_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DIRECTIVE: Final = re.compile(r"#\s*escape\s*=\s*(\S)", re.IGNORECASE)
_HEREDOC: Final = re.compile(r"<<-?([\"']?)([A-Za-z_][A-Za-z0-9_]*)\1")
_PLATFORM: Final = frozenset(
    f"{side}{part}"
    for side in ("TARGET", "BUILD")
    for part in ("PLATFORM", "OS", "ARCH", "VARIANT")
)
WHERE: Final = "the build argument"


@dataclass(frozen=True, slots=True)
class Word:
    """A word of an instruction, unquoted, with the line and column it starts at."""

    text: str
    line: int
    column: int
    quoted: bool


def read_dockerfile(
    rel: str, data: bytes, text: str, settings: Settings, path: Path
) -> LauncherRead:
    """A Dockerfile's reader (see scanner.languages)."""
    return LauncherRead(analyse_dockerfile(rel, text, settings))


def analyse_dockerfile(rel: str, text: str, settings: Settings) -> FileResult:
    """The ``ENV`` writes and ``ARG`` reads of one Dockerfile."""
    sites: list[Site] = []
    writes: list[Write] = []
    stage = 0
    function = "<stage 1>"
    for words in instructions(text):
        keyword = words[0].text.upper()
        if keyword == "FROM":
            stage += 1
            alias = words[3].text if len(words) >= 4 and words[2].text.upper() == "AS" else None
            function = alias or f"<stage {stage}>"
        elif keyword == "ENV":
            writes.extend(_env(rel, words[1:], function, settings))
        elif keyword == "ARG":
            sites.extend(_arg(rel, words[1:], function, settings))
    return FileResult(
        sites=tuple(sorted(sites, key=lambda s: s.sort_key)),
        writes=tuple(sorted(writes, key=lambda w: w.sort_key)),
    )


def instructions(text: str) -> Iterator[list[Word]]:
    """Each instruction's words, continuation lines joined, comments left out."""
    escape = "\\"
    lines = text.split("\n")
    for line in lines[:5]:  # parser directives come first, before any instruction
        found = _DIRECTIVE.fullmatch(line.strip())
        if found is not None and found.group(1) in "\\`":
            escape = found.group(1)
    chars: list[tuple[str, int, int]] = []  # the logical line: (character, line, column)
    heredocs: list[str] = []  # the delimiters of the here-documents still to skip
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if heredocs:
            if line.strip() == heredocs[0]:
                heredocs.pop(0)
            continue  # a line of a here-document (RUN <<EOF): not an instruction
        if chars and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if not chars and (not line.strip() or line.lstrip().startswith("#")):
            continue
        body = line.rstrip()
        continued = body.endswith(escape)
        if continued:
            body = body[:-1]
        chars.extend((c, number, column) for column, c in enumerate(body, start=1))
        if continued:
            chars.append((" ", number, len(body) + 1))
            continue
        words = _split(chars, escape)
        heredocs = [m.group(2) for m in _HEREDOC.finditer("".join(c for c, _, _ in chars))]
        chars = []
        if words:
            yield words
    if chars:
        words = _split(chars, escape)
        if words:
            yield words


def _split(chars: list[tuple[str, int, int]], escape: str) -> list[Word]:
    """Words as the shell-like ``ENV`` and ``ARG`` parsers split them: blanks outside
    quotes separate, quotes and the escape character are removed."""
    words: list[Word] = []
    current: list[str] = []
    start: tuple[int, int] | None = None
    quote: str | None = None
    quoted = False
    index = 0
    while index < len(chars):
        char, line, column = chars[index]
        index += 1
        if quote is None and char.isspace():
            if start is not None:
                words.append(Word("".join(current), *start, quoted))
                current, start, quoted = [], None, False
            continue
        if start is None:
            start = (line, column)
        if char == escape and quote != "'" and index < len(chars):
            current.append(chars[index][0])
            index += 1
        elif quote is None and char in "'\"":
            quote, quoted = char, True
        elif char == quote:
            quote = None
        else:
            current.append(char)
    if start is not None:
        words.append(Word("".join(current), *start, quoted))
    return words


def _env(rel: str, words: list[Word], function: str, settings: Settings) -> Iterator[Write]:
    if not words:
        return
    if "=" not in words[0].text:
        # ENV NAME value with blanks: the older form, one variable.
        pairs = [(words[0], " ".join(w.text for w in words[1:]))]
    else:
        pairs = [(w, w.text.partition("=")[2]) for w in words if "=" in w.text]
    for word, value in pairs:
        name = word.text.partition("=")[0]
        if not _NAME.match(name) or (settings.match and not matches(name, settings.match)):
            continue
        yield Write(
            name=name,
            path=rel,
            line=word.line,
            column=word.column,
            kind=WriteKind.EXPORT,
            function=function,
            value=None if "$" in value else value,
            language=Language.DOCKERFILE,
        )


def _arg(rel: str, words: list[Word], function: str, settings: Settings) -> Iterator[Site]:
    for word in words:
        name, equals, default = word.text.partition("=")
        if not _NAME.match(name) or (settings.match and not matches(name, settings.match)):
            continue
        value = default if equals and "$" not in default else None
        if name in _PLATFORM or is_launch_fact(name, settings.launch_facts):
            gate = LAUNCH_GATE
        else:
            gate = judge(name, value, None, {}, WHERE)
        yield Site(
            name=name,
            path=rel,
            line=word.line,
            column=word.column,
            kind=ReadKind.BUILD_ARG,
            default=value,
            gate=gate,
            function=function,
            language=Language.DOCKERFILE,
        )
