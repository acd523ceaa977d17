"""``#SBATCH --export=`` directives of a batch script: the environment Slurm gives the job.

``sbatch`` reads ``#SBATCH`` lines until the first line that is neither a comment nor
blank. ``--export=A=1,B`` sets A to 1 and hands on B from the environment of whoever
submits the job (a write whose value the script cannot state: None); ``ALL``,
``NONE`` and ``NIL`` say which others are handed on and write nothing. Slurm does
not expand variables in directives.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from scanner.languages import Language
from scanner.model import FileResult, Write, WriteKind
from scanner.patterns import matches
from scanner.settings import Settings

_EXPORT: Final = re.compile(r"#SBATCH\s+.*?--export(?:=|\s+)(\S+)")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS: Final = frozenset({"ALL", "NONE", "NIL"})
DIRECTIVES: Final = "<sbatch>"  # the function a directive's write is in


def directive_writes(rel: str, text: str, settings: Settings) -> list[Write]:
    """The writes of the script's ``#SBATCH --export=`` directives."""
    writes: list[Write] = []
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if number == 1 and stripped.startswith("#!"):
            continue
        if stripped and not stripped.startswith("#"):
            break  # sbatch reads no directive after the first command
        found = _EXPORT.match(stripped)
        if found is None:
            continue
        indent = len(line) - len(line.lstrip())
        start = indent + found.start(1)
        for item in found.group(1).split(","):
            name, equals, value = item.partition("=")
            column = start + 1
            start += len(item) + 1
            if name.upper() in _KEYWORDS or not _NAME.match(name):
                continue
            if settings.match and not matches(name, settings.match):
                continue
            writes.append(
                Write(
                    name=name,
                    path=rel,
                    line=number,
                    column=column,
                    kind=WriteKind.EXPORT,
                    function=DIRECTIVES,
                    value=_unquoted(value) if equals else None,
                    language=Language.SHELL,
                )
            )
    return writes


def with_directives(result: FileResult, rel: str, text: str, settings: Settings) -> FileResult:
    """A shell script's result with the writes of its ``#SBATCH`` directives added."""
    if "#SBATCH" not in text:
        return result
    added = directive_writes(rel, text, settings)
    if not added:
        return result
    writes = tuple(sorted((*result.writes, *added), key=lambda w: w.sort_key))
    return replace(result, writes=writes)


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
