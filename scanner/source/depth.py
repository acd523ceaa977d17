"""Code nested too deep for the parser: kept from libcst.

libcst's parser recurses once per level of nesting, on the C stack of the
process: about 1,250 nested brackets, or 7,000 operands of one ``and`` chain,
end the process with a segmentation fault that no ``except`` can catch, and the
analysis itself recurses through the tree. CPython refuses 200 nested brackets;
the scanner refuses code nested ``MAX_DEPTH`` deep, counted on the ``ast`` of
the statements libcst would see, as libcst nests them (an ``and`` chain as deep
as it has operands). A file CPython parses keeps everything but its too-deep
statements (``flatten``): each is left out, with a note, and the rest is read.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from scanner.source.anchors import LineText, build_anchors, literal_count
from scanner.source.ast_walk import children

MAX_DEPTH = 200
_BRACKETS = re.compile(r"[][(){}]")


def too_deep(deepest: tuple[int, int]) -> str | None:
    """The error for code nested ``deepest = (depth, line)``, or None when it is fine."""
    depth, line = deepest
    return deep_message(line) if depth > MAX_DEPTH else None


def deep_message(line: int) -> str:
    """The error for a file whose code nests too deep on ``line``."""
    return (
        f"Code on line {line} nests more than {MAX_DEPTH} levels deep, more than the "
        "scanner's parser can take; the file is not analysed (split the expression, "
        "or exclude the file if it is generated)."
    )


def nesting_problem(text: str) -> str | None:
    """The error for ``text`` (the whole file, not narrowed) when it nests too deep, or
    when ``ast`` cannot parse it and the reason may be its nesting (libcst would crash
    on it instead of reporting a syntax error); None otherwise."""
    try:
        tree = ast.parse(text)
    except (RecursionError, MemoryError):
        return _bracket_problem(text) or deep_message(1)
    except SyntaxError as exc:
        message = str(exc.msg)
        if "too many nested" in message or "too complex" in message:
            return deep_message(exc.lineno or 1)
        return _bracket_problem(text)
    except ValueError:
        return None
    return too_deep(build_anchors(tree, text.splitlines(), lambda line: True).deepest)


def _bracket_problem(text: str) -> str | None:
    """Brackets nested too deep, counted on the raw text (brackets in strings and
    comments included: the file does not parse anyway)."""
    depth, deepest, at = 0, 0, 0
    for match in _BRACKETS.finditer(text):
        depth += 1 if match.group() in "([{" else -1
        if depth > deepest:
            deepest, at = depth, match.start()
    return too_deep((deepest, text.count("\n", 0, at) + 1))


@dataclass(frozen=True, slots=True)
class Flattened:
    """A file with its too-deep statements left out: the text the scanner reads instead
    (each such statement a ``pass`` on its first line, its other lines blank, so that
    every line keeps its number) and a note per statement left out."""

    text: str
    notes: tuple[str, ...]


_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    *((ast.Match,) if hasattr(ast, "Match") else ()),
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)


def flatten(text: str) -> Flattened | None:
    """``text`` with each simple statement that nests more than ``MAX_DEPTH`` deep left
    out, as long as CPython parses it and what is left nests less; None otherwise."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    lines = text.splitlines()
    deep = _deep_statements(tree, lines)
    if not deep:
        return None
    out = list(lines)
    notes = []
    for statement in deep:
        first, last = statement.lineno, statement.end_lineno or statement.lineno
        head, tail = lines[first - 1], lines[last - 1]
        if head[: statement.col_offset].strip() or tail[statement.end_col_offset or 0 :].strip():
            return None  # shares a line with another statement: not left out alone
        out[first - 1] = head[: statement.col_offset] + "pass"
        for number in range(first, last):
            out[number] = ""
        notes.append(
            f"line {first}: code on lines {first}-{last} nests more than {MAX_DEPTH} levels "
            "deep, more than the scanner's parser can take; that statement is left out (a "
            "read in it is not listed) and the rest of the file is read."
        )
    flat = "\n".join(out) + ("\n" if text.endswith("\n") else "")
    if nesting_problem(flat) is not None:
        return None
    return Flattened(flat, tuple(notes))


def _deep_statements(tree: ast.Module, lines: list[str]) -> list[ast.stmt]:
    """The innermost simple statements in which code nests more than MAX_DEPTH deep
    (counted as build_anchors counts), in order; empty when a compound statement's own
    header or its nesting does."""
    found: dict[int, ast.stmt] = {}
    text = LineText(lines)
    stack: list[tuple[ast.AST, int, ast.stmt | None]] = [(tree, 0, None)]
    while stack:
        node, depth, owner = stack.pop()
        if isinstance(node, ast.stmt):
            owner = node
        if isinstance(node, ast.Constant | ast.JoinedStr):
            depth += literal_count(node, text) - 1
        if depth > MAX_DEPTH:
            if owner is None or isinstance(owner, _COMPOUND):
                return []
            found[id(owner)] = owner
            continue
        step = len(node.values) if isinstance(node, ast.BoolOp) else 1
        stack.extend((child, depth + step, owner) for child in children(node))
    return sorted(found.values(), key=lambda s: s.lineno)
