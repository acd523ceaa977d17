"""Bash's patterns as bash matches them: ``[[ $X == a* ]]``, ``case`` items, ``=~``.

A word on the right of ``==`` is a glob (``*``, ``?``, bracket expressions, and the
extended forms ``@(a|b)``, ``*(..)``, ``+(..)``, ``?(..)`` as if ``extglob`` were on); on
the right of ``=~``, a POSIX extended regular expression. Either way, a quoted part
(``"a*"``, ``'.'``, ``\\*``) is matched as it is written. POSIX bracket classes
(``[[:space:]]``) and a leading ``!`` or ``^`` of a bracket expression mean what they
mean in bash, not what ``fnmatch`` or Python's ``re`` would make of the text; a backslash
before any character quotes it (``\\d`` is the letter d). Each pattern is translated into
one Python expression, matched whole for a glob, searched for a regular expression.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from scanner.launcher.shell_syntax import literal, text

if TYPE_CHECKING:
    from tree_sitter import Node

Char = tuple[str, bool]  # a character, and whether it is quoted

_CLASSES: Final = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": re.escape(string.punctuation),
    "space": " \\t\\n\\r\\x0b\\x0c",
    "upper": "A-Z",
    "word": "a-zA-Z0-9_",
    "xdigit": "0-9A-Fa-f",
}
_EXTGLOB: Final = {"@": "", "*": "*", "+": "+", "?": "?"}
_EXPANDS: Final = re.compile(r"\$[\w{(@*#?$!-]")
_ERE_SPECIAL: Final = frozenset(".^$|()*+?{}")


@dataclass(frozen=True)
class Pattern:
    """A pattern of a script in Python's terms: ``fixed`` is the one text it matches where
    it has no unquoted special character; ``regex`` is None where bash would fail on it
    (a regular expression that does not compile) or the form is not tried (``!(..)``)."""

    regex: re.Pattern[str] | None
    fixed: str | None
    whole: bool  # a glob matches the whole text; a regular expression, a part of it

    def matches(self, seen: str) -> bool | None:
        """Whether bash's test matches ``seen``; None where it cannot be told."""
        if self.regex is None:
            return None
        found = self.regex.fullmatch(seen) if self.whole else self.regex.search(seen)
        return found is not None


def glob(node: Node) -> Pattern | None:
    """The glob ``node`` (a word, a string, a concatenation) is, or None where it holds an
    expansion."""
    chars = characters(node, regex=False)
    if chars is None:
        return None
    translated = _glob(chars, 0, len(chars))
    written = "".join(c for c, _ in chars)
    fixed = written if translated == re.escape(written) else None
    return Pattern(_compiled(translated), fixed, whole=True)


def ere(node: Node) -> Pattern | None:
    """The regular expression ``node`` (the right of ``=~``) is, or None where it holds an
    expansion."""
    chars = characters(node, regex=True)
    if chars is None:
        return None
    fixed = "".join(c for c, _ in chars) if all(q for _, q in chars) else None
    return Pattern(_compiled(_ere(chars)), fixed, whole=False)


def ere_value(value: str) -> Pattern:
    """The regular expression a variable's value is where its unquoted read stands on the
    right of ``=~``."""
    return Pattern(_compiled(_ere([(c, False) for c in value])), None, whole=False)


def characters(node: Node, *, regex: bool) -> list[Char] | None:
    """The characters of ``node`` with whether each is quoted, or None where it holds an
    expansion. tree-sitter leaves a ``regex`` node's quotes in its text."""
    if node.type in ("word", "extglob_pattern", "number") or (node.type == "regex" and regex):
        return _unquoted(text(node))
    if not node.is_named:  # a dollar sign that starts no expansion: ``a$``
        return [(c, False) for c in text(node)]
    if node.type in ("string", "raw_string", "ansi_c_string"):
        value = literal(node)
        return None if value is None else [(c, True) for c in value]
    if node.type == "concatenation":
        chars: list[Char] = []
        for part in node.children:
            inner = characters(part, regex=regex)
            if inner is None:
                return None
            chars.extend(inner)
        return chars
    return None


def _unquoted(word: str) -> list[Char] | None:
    """A word's characters: ``\\c`` and the inside of ``'..'`` and ``".."`` are quoted."""
    chars: list[Char] = []
    i = 0
    while i < len(word):
        c = word[i]
        if c == "\\" and i + 1 < len(word):
            chars.append((word[i + 1], True))
            i += 2
        elif c == "'":
            end = word.find("'", i + 1)
            if end < 0:
                return None
            chars.extend((q, True) for q in word[i + 1 : end])
            i = end + 1
        elif c == '"':
            end = word.find('"', i + 1)
            inner = word[i + 1 : end]
            if end < 0 or _EXPANDS.search(inner) or "`" in inner:
                return None
            chars.extend((q, True) for q in inner.replace('\\"', '"'))
            i = end + 1
        elif c == "`" or _EXPANDS.match(word, i):
            return None
        else:
            chars.append((c, False))
            i += 1
    return chars


def _glob(chars: list[Char], start: int, stop: int) -> str | None:
    out: list[str] = []
    i = start
    while i < stop:
        c, quoted = chars[i]
        if quoted:
            out.append(re.escape(c))
        elif c in "@*+?!" and i + 1 < stop and chars[i + 1] == ("(", False):
            end = _closing(chars, i + 1, stop)
            if end is None or c == "!":
                return None  # an unclosed list, or !(..): not tried
            branches = [_glob(chars, a, b) for a, b in _split(chars, i + 2, end)]
            if any(b is None for b in branches):
                return None
            out.append(f"(?:{'|'.join(b for b in branches if b is not None)}){_EXTGLOB[c]}")
            i = end + 1
            continue
        elif c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            bracket = _bracket(chars, i, stop, negations="!^")
            if bracket is None:
                out.append(re.escape("["))
            else:
                out.append(bracket[0])
                i = bracket[1]
                continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _ere(chars: list[Char]) -> str | None:
    out: list[str] = []
    i = 0
    while i < len(chars):
        c, quoted = chars[i]
        if quoted or c not in _ERE_SPECIAL | {"["}:
            out.append(re.escape(c))
        elif c == "[":
            bracket = _bracket(chars, i, len(chars), negations="^")
            if bracket is None:
                return None  # bash: the expression does not compile
            out.append(bracket[0])
            i = bracket[1]
            continue
        elif c == "(" and i + 1 < len(chars) and chars[i + 1] == ("?", False):
            return None  # Python's extensions are errors in POSIX
        elif c == "$":
            out.append("\\Z")  # Python's $ also matches before a last newline
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _bracket(chars: list[Char], start: int, stop: int, negations: str) -> tuple[str, int] | None:
    """The bracket expression opening at ``start`` as a Python class, and the index after
    its ``]``; None where it does not close or names no class bash knows."""
    i = start + 1
    negated = i < stop and not chars[i][1] and chars[i][0] in negations
    i += negated
    members: list[str] = []
    first = True
    while i < stop:
        c, quoted = chars[i]
        if c == "]" and not quoted and not first:
            return f"[{'^' if negated else ''}{''.join(members)}]", i + 1
        first = False
        if c == "[" and not quoted and i + 1 < stop and chars[i + 1][0] in ":=.":
            kind = chars[i + 1][0]
            end = next(
                (
                    j
                    for j in range(i + 2, stop - 1)
                    if chars[j] == (kind, False) and chars[j + 1][0] == "]"
                ),
                None,
            )
            if end is None:
                return None
            name = "".join(ch for ch, _ in chars[i + 2 : end])
            if kind == ":":
                if name not in _CLASSES:
                    return None
                members.append(_CLASSES[name])
            else:
                members.append(re.escape(name))
            i = end + 2
            continue
        if c == "-" and not quoted and members and i + 1 < stop and chars[i + 1] != ("]", False):
            members.append("-")
        else:
            members.append(re.escape(c))
        i += 1
    return None


def _closing(chars: list[Char], opening: int, stop: int) -> int | None:
    depth = 0
    for j in range(opening, stop):
        c, quoted = chars[j]
        if quoted:
            continue
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return j
    return None


def _split(chars: list[Char], start: int, stop: int) -> list[tuple[int, int]]:
    """The ``|``-separated branches of an extended glob's list, at its own depth."""
    parts: list[tuple[int, int]] = []
    depth, begin = 0, start
    for j in range(start, stop):
        c, quoted = chars[j]
        if quoted:
            continue
        depth += (c == "(") - (c == ")")
        if c == "|" and depth == 0:
            parts.append((begin, j))
            begin = j + 1
    parts.append((begin, stop))
    return parts


def _compiled(translated: str | None) -> re.Pattern[str] | None:
    if translated is None:
        return None
    try:
        return re.compile(translated, re.DOTALL)
    except re.error:
        return None
