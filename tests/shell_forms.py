"""The forms under which the product's shell parser and mvdan/sh still disagree.

Each form has a detector that recognises it from the script's text (and where the bash
grammar's tree has errors); a form is documented when docs/scanning.md names it, under
"Shell forms the bash grammar misreads". A disagreement no detector recognises is
"unexplained": the benchmark fails on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.shell_diff import Found

DOCS = Path(__file__).resolve().parents[1] / "docs" / "scanning.md"


@dataclass(frozen=True, slots=True)
class Form:
    """A form of disagreement, by the name docs/scanning.md gives it."""

    name: str

    @property
    def documented(self) -> bool:
        return f"**{self.name}**" in _docs()


@cache
def _docs() -> str:
    return DOCS.read_text("utf-8") if DOCS.exists() else ""


@dataclass(frozen=True, slots=True)
class Where:
    """What a detector may look at: the script, the lines of the bash grammar's errors
    (1-based, sorted) and mvdan/sh's message when it rejected the script."""

    data: bytes
    errors: tuple[int, ...] = ()
    mvdan_error: str | None = None

    def line(self, number: int) -> bytes:
        lines = self.data.split(b"\n")
        return lines[number - 1] if 0 < number <= len(lines) else b""


TEMPLATE = Form("a template that bash rejects too")
ARITHMETIC_KEY = Form("an associative array's key that mvdan/sh reads as arithmetic")
PID_AFTER_WORD = Form("$$ right after a word")
HEREDOC_POSITIONAL = Form("a positional parameter in a here-document")
REGEX = Form("an expansion in an =~ regular expression")
JOINED_BRACKET = Form("the ] of a [ test joined to its last word")
ARRAY_WORD = Form("a [0]*3 word in an array literal")
BAD_SUBSTITUTION = Form("a ${...} that names no parameter")
REJECTED = Form("mvdan/sh rejects the script")
# Under --unrepaired: what the repairs fix (docs/scanning.md lists them in its table).
REPAIRED = Form("misread by the grammar alone, repaired")
UNEXPLAINED = Form("unexplained")

_PLACEHOLDER = re.compile(rb"(?<!<)<[A-Za-z_][A-Za-z0-9_ ./:,-]{0,80}>")
_ERROR_AT = re.compile(r"^(\d+):\d+:")


def rejected(where: Where) -> Form:
    """Why mvdan/sh rejected a script the product parses."""
    message = where.mvdan_error or ""
    found = _ERROR_AT.match(message)
    line = where.line(int(found[1])) if found else b""
    if _PLACEHOLDER.search(line):
        return TEMPLATE
    if "arithmetic" in message:
        return ARITHMETIC_KEY
    if "must be followed by `=`" in message:
        return ARRAY_WORD
    if "not a valid parameter expansion operator" in message:
        return BAD_SUBSTITUTION
    return REJECTED


def classify(where: Where, ours: Found | None, theirs: Found | None) -> Form:
    """The form of one disagreement."""
    found = theirs or ours
    assert found is not None
    for detect in _DETECTORS:
        form = detect(where, ours, theirs, found)
        if form is not None:
            return form
    return UNEXPLAINED


Detector = Callable[[Where, "Found | None", "Found | None", "Found"], "Form | None"]


def _pid(where: Where, ours: Found | None, theirs: Found | None, found: Found) -> Form | None:
    return PID_AFTER_WORD if ours is None and found.name == "$" else None


def _heredoc(where: Where, ours: Found | None, theirs: Found | None, found: Found) -> Form | None:
    heredoc = theirs is not None and theirs.word[0] == theirs.word[1]
    positional = found.name.isdigit() or found.name in "@*#?-!$"
    return HEREDOC_POSITIONAL if ours is None and heredoc and positional else None


def _regex(where: Where, ours: Found | None, theirs: Found | None, found: Found) -> Form | None:
    line = where.line(found.at[0])
    return REGEX if ours is None and b"=~" in line[: found.at[1]] else None


def _bracket(where: Where, ours: Found | None, theirs: Found | None, found: Found) -> Form | None:
    if ours is None or theirs is None or ours.word[0] != theirs.word[0]:
        return None
    (line, column) = ours.word[1]
    joined = where.line(line)[column - 1 : column] == b"]"
    return JOINED_BRACKET if joined and theirs.word[1] == (line, column + 1) else None


_DETECTORS: tuple[Detector, ...] = (_pid, _heredoc, _regex, _bracket)
FORMS: tuple[Form, ...] = (
    TEMPLATE,
    ARITHMETIC_KEY,
    PID_AFTER_WORD,
    HEREDOC_POSITIONAL,
    REGEX,
    JOINED_BRACKET,
    ARRAY_WORD,
    BAD_SUBSTITUTION,
)
