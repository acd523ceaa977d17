"""The expansions a shell script holds, by the product's parser and by mvdan/sh, compared.

Shared by the differential benchmark (benchmarks/shell_parse.py, on real trees) and the
test that runs it on the fixtures (tests/test_shell_parse_diff.py). An expansion is one
that starts with ``$``: its name (``X``, ``1``, ``@``), its flags (``!`` indirect, ``#``
length), the byte line and column of its ``$`` (1-based), and the word it sits in, by
the start and end of that word. A bare name in arithmetic (``$((x + 1))``) is not
compared: the bash grammar spells it four ways, mvdan/sh one.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.launcher.shell_repair import Script, parse_script
from scanner.launcher.shell_syntax import is_expansion, parser, text
from tests.shell_forms import Form, Where, classify, rejected

Position = tuple[int, int]  # 1-based line, 1-based byte column


@dataclass(frozen=True, slots=True, order=True)
class Found:
    """One expansion as a parser sees it."""

    at: Position
    name: str
    flags: str  # "!" indirect, "#" length, "" otherwise
    word: tuple[Position, Position]  # where the word holding it starts and ends

    def shown(self) -> str:
        (l1, c1), (l2, c2) = self.word
        return f"${self.flags}{self.name} at {self.at[0]}:{self.at[1]} in {l1}:{c1}-{l2}:{c2}"


@dataclass(frozen=True, slots=True)
class Disagreement:
    """An expansion one parser finds and the other does not (or in another word)."""

    ours: Found | None
    theirs: Found | None
    form: Form

    def shown(self, path: str) -> str:
        found = self.ours or self.theirs
        if found is None:
            return f"{path}: {self.form.name}"
        line = f"{path}:{found.at[0]}:{found.at[1]}"
        ours = self.ours.shown() if self.ours else "-"
        theirs = self.theirs.shown() if self.theirs else "-"
        return f"{line}: product {ours}; mvdan/sh {theirs}"


@dataclass(frozen=True, slots=True)
class Comparison:
    path: str
    ours: frozenset[Found]
    theirs: frozenset[Found]
    disagreements: tuple[Disagreement, ...]
    mvdan_error: str | None = None


# The product's parser ----------------------------------------------------------------


class _Places:
    """A parsed script's byte offsets as the file's 1-based lines and byte columns."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.newlines = [i for i, b in enumerate(script.source) if b == 10]

    def at(self, offset: int) -> Position:
        at = self.script.offset(offset)
        row = bisect_left(self.newlines, at)
        start = self.newlines[row - 1] + 1 if row else 0
        return row + 1, at - start + 1


_WORD_PARTS = frozenset({"concatenation", "string", "heredoc_body"})


def _name_and_flags(node: Any) -> tuple[str, str] | None:
    flags = ""
    for child in node.children:
        kind = child.type
        if kind in ("variable_name", "special_variable_name"):
            return text(child), flags
        if kind == "subscript":
            inner = child.child_by_field_name("name")
            return (text(inner) if inner is not None else ""), flags
        if not child.is_named and kind in ("!", "#"):
            flags += kind
        elif child.is_named:
            return None  # $$, ${!#}: nothing the analysis reads by name
    return None


def _word_of(node: Any, places: _Places) -> tuple[Position, Position]:
    """Where the word holding an expansion starts and ends, as bash splits words: the
    parts that touch, up to blanks and operators (the grammar leaves the parts of a case
    pattern or of the right side of ``==`` side by side, with no node around them)."""
    current = node
    while current.parent is not None and current.parent.type in _WORD_PARTS:
        current = current.parent
    parent = current.parent
    start, end = places.script.start(current), current.end_byte
    if current.type == "heredoc_body":
        end = start
    elif parent is not None and parent.type == "subscript" and current.type != "string":
        start, end = places.script.start(node), node.end_byte  # an arithmetic operand
    elif parent is not None and is_expansion(parent):
        group = _operand(parent, current)
        if group is None:  # ${X:offset:length}: arithmetic operands
            start, end = places.script.start(node), node.end_byte
        else:
            start, end = group
    elif parent is not None:
        siblings = parent.children
        at = siblings.index(current)
        first = last = at
        while first > 0 and _touch(siblings[first - 1], siblings[first]):
            first -= 1
        while last + 1 < len(siblings) and _touch(siblings[last], siblings[last + 1]):
            last += 1
        start = places.script.start(siblings[first]) if first != at else start
        end = siblings[last].end_byte
    # 10#$A: one word to bash (a number and its base), two once the grammar reads # as +
    source, offset = places.script.source, places.script.offset(start)
    base = _BASE.search(source[max(0, offset - 8) : offset])
    if base is not None:
        start -= len(base[0])
    return places.at(start), places.at(end)


_BASE = re.compile(rb"[0-9]+#\Z")


def _touch(left: Any, right: Any) -> bool:
    return bool(left.is_named and right.is_named and left.end_byte == right.start_byte)


def _operand(node: Any, part: Any) -> tuple[int, int] | None:
    """The bytes of the operand of ``${X<op>...}`` that holds ``part``: the named children
    between two operator tokens (None in a substring's arithmetic)."""
    children = node.children
    at = children.index(part)
    operators = [c.type for c in children[:at] if not c.is_named and c.type not in ("${", "!", "#")]
    if operators and operators[0] == ":":
        return None
    first = last = at
    while first > 0 and children[first - 1].is_named:
        first -= 1
    while last + 1 < len(children) and children[last + 1].is_named:
        last += 1
    return children[first].start_byte, children[last].end_byte


def product_expansions(data: bytes, *, repaired: bool = True) -> frozenset[Found]:
    """Every ``$`` expansion the product's parser finds in a script (``repaired=False``:
    the bash grammar's own tree, as the product parsed before shell_repair)."""
    script = parse_script(data) if repaired else Script(parser().parse(data), data, data)
    places = _Places(script)
    found: set[Found] = set()
    stack = [script.root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if not is_expansion(node):
            continue
        named = _name_and_flags(node)
        if named is None:
            continue
        at = places.at(script.start(node)) if repaired else places.at(node.start_byte)
        found.add(Found(at, named[0], named[1], _word_of(node, places)))
    return frozenset(found)


# mvdan/sh ----------------------------------------------------------------------------


def shfmt_path(given: str | None = None) -> str:
    """The shfmt binary: ``given``, else the one beside this Python, else on PATH."""
    if given:
        return given
    beside = Path(sys.executable).parent / "shfmt"
    if beside.exists():
        return str(beside)
    found = shutil.which("shfmt")
    if found is None:
        raise SystemExit("shfmt is not installed: pip install shfmt-py (or pass --shfmt PATH)")
    return found


def shfmt_json(shfmt: str, data: bytes) -> tuple[Any, str | None]:
    """mvdan/sh's tree of a script (bash dialect), or None and why it rejected it."""
    done = subprocess.run(
        [shfmt, "--to-json", "-ln=bash"], input=data, capture_output=True, check=False
    )
    if done.returncode != 0:
        return None, done.stderr.decode("utf-8", "replace").strip()
    return json.loads(done.stdout), None


def _pos(pos: dict[str, int]) -> Position:
    return pos["Line"], pos["Col"]


Span = tuple[Position, Position]


def _walk_mvdan(
    node: Any, word: Span | None, heredoc: bool = False
) -> Iterator[tuple[dict[str, Any], Span | None]]:
    if isinstance(node, list):
        for item in node:
            yield from _walk_mvdan(item, word)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("Type")
    if "Parts" in node and kind in (None, "Word") and "Pos" in node:
        # A heredoc's body is known by where it starts (the parsers end it differently).
        end = node["Pos"] if heredoc else node["End"]
        word = (_pos(node["Pos"]), _pos(end))
    if kind == "ParamExp":
        yield node, word
    for key, value in node.items():
        if isinstance(value, (dict, list)):
            yield from _walk_mvdan(value, word, key == "Hdoc")


def mvdan_expansions(parsed: tuple[Any, str | None], data: bytes) -> frozenset[Found] | str:
    """Every ``$`` expansion in mvdan/sh's tree; the error text when it rejected the file."""
    tree, error = parsed
    if tree is None:
        return error or "rejected"
    found: set[Found] = set()
    for node, word in _walk_mvdan(tree, None):
        offset = node["Pos"]["Offset"]
        if data[offset : offset + 1] != b"$" or word is None:
            continue  # a bare name in arithmetic: z[i] in $((z[i]))
        param = node.get("Param") or {}
        name = param.get("Value", "")
        flags = ("!" if node.get("Excl") else "") + ("#" if node.get("Length") else "")
        if node.get("Names"):  # ${!prefix*}
            flags = "!"
        found.add(Found(_pos(node["Pos"]), name, flags, _trimmed(word, data)))
    return frozenset(found)


def _trimmed(word: Span, data: bytes) -> Span:
    """A word's span without the line continuations (backslash, newline) that end it:
    mvdan/sh counts them in, the bash grammar does not, and bash removes them."""
    (start, (line, column)) = word
    lines = data.split(b"\n")
    while column == 1 and line > 1 and lines[line - 2].endswith(b"\\"):
        line, column = line - 1, len(lines[line - 2])
    return start, (line, column)


# Both --------------------------------------------------------------------------------


def error_lines(data: bytes) -> tuple[int, ...]:
    """The lines (1-based) where the product's tree of a script has an error."""
    script = parse_script(data)
    if not script.root.has_error:
        return ()
    places = _Places(script)
    found: set[int] = set()
    stack = [script.root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            found.add(places.at(node.start_byte)[0])
        elif node.has_error:
            stack.extend(node.children)
    return tuple(sorted(found))


def compare(
    path: str, data: bytes, ours: frozenset[Found], theirs: frozenset[Found] | str
) -> Comparison:
    """Where the two parsers differ, each difference under its form."""
    if isinstance(theirs, str):
        form = rejected(Where(data, mvdan_error=theirs))
        return Comparison(path, ours, frozenset(), (Disagreement(None, None, form),), theirs)
    by_place_ours = {(f.at, f.name, f.flags): f for f in ours}
    by_place_theirs = {(f.at, f.name, f.flags): f for f in theirs}
    where: Where | None = None
    out: list[Disagreement] = []
    for key in sorted(set(by_place_ours) | set(by_place_theirs)):
        mine, other = by_place_ours.get(key), by_place_theirs.get(key)
        if mine is not None and other is not None and mine.word == other.word:
            continue
        where = where or Where(data, error_lines(data))
        out.append(Disagreement(mine, other, classify(where, mine, other)))
    return Comparison(path, ours, theirs, tuple(out))
