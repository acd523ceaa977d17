"""Parse less: keep only the top-level statements the analysis needs.

libcst is an order of magnitude slower than CPython's own parser, and most of a
file that reads one variable is unrelated code. The standard library's ``ast``
finds the top-level statements (and, inside classes, the body statements) that
mention a word of interest, plus the module's imports and constants; every other
line is replaced by an empty line. Line and column numbers in the narrowed text
are those of the whole file, so libcst positions need no translation.
"""

from __future__ import annotations

import ast
import io
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_CONSTANT_VALUES = (
    ast.Constant,
    ast.JoinedStr,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.BinOp,
    ast.UnaryOp,
    ast.Name,
    ast.Attribute,
)


@dataclass(frozen=True, slots=True)
class Narrowed:
    """The text to hand to libcst, and what the dropped statements bound."""

    text: str
    functions: frozenset[str]  # module-level def and class names, dropped ones included
    ambiguous: frozenset[str]  # names bound more than once at module level


def narrow(text: str, words: Sequence[str]) -> Narrowed | None:
    """``text`` with irrelevant statements blanked, or None when ``ast`` cannot parse it."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    words = (*words, *_aliases(tree.body, words))
    lines = list(_lines(text))
    keep = [False] * (len(lines) + 2)
    covered = [False] * (len(lines) + 2)
    _select(tree.body, lines, words, keep, covered, top=True)
    narrowed = "".join(
        line if keep[number] or not covered[number] else _ending(line)
        for number, line in enumerate(lines, start=1)
    )
    functions = frozenset(
        s.name
        for s in tree.body
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )
    counts: Counter[str] = Counter()
    for statement in tree.body:
        counts.update(_bound(statement))
    ambiguous = frozenset(name for name, count in counts.items() if count > 1)
    return Narrowed(narrowed, functions, ambiguous)


def _select(
    body: Sequence[ast.stmt],
    lines: list[str],
    words: Sequence[str],
    keep: list[bool],
    covered: list[bool],
    *,
    top: bool,
) -> bool:
    kept_any = False
    for statement in body:
        start, end = _span(statement)
        for number in range(start, end + 1):
            covered[number] = True
        segment = "".join(lines[start - 1 : end])
        mentions = any(word in segment for word in words)
        if mentions and isinstance(statement, ast.ClassDef):
            # Keep the class header and only the body statements that matter.
            header_end = statement.body[0].lineno - 1 if statement.body else end
            header_start = start
            if not _select(statement.body, lines, words, keep, covered, top=False):
                header_end = end
            for number in range(header_start, max(header_end, header_start) + 1):
                keep[number] = True
            kept_any = True
        elif mentions or (top and _structural(statement)):
            for number in range(start, end + 1):
                keep[number] = True
            kept_any = True
    return kept_any


def _aliases(body: Sequence[ast.stmt], words: Sequence[str]) -> Iterator[str]:
    """Other names for the words: ``from os import environ as ENV``, ``_env = os.environ``."""
    for statement in body:
        for node in _shallow(statement):
            if isinstance(node, ast.alias) and node.asname and node.name in words:
                yield node.asname
            elif (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Attribute | ast.Name)
                and any(w in ast.unparse(node.value) for w in words)
            ):
                yield from (t.id for t in node.targets if isinstance(t, ast.Name))


def _structural(statement: ast.stmt) -> bool:
    """Imports (also inside ``try``/``if``) and module constants: the module's bindings."""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return True
    if isinstance(statement, ast.Assign | ast.AnnAssign):
        return isinstance(statement.value, _CONSTANT_VALUES)
    if isinstance(statement, ast.If | ast.Try | ast.With):
        return any(isinstance(node, ast.Import | ast.ImportFrom) for node in _shallow(statement))
    return False


def _shallow(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of ``statement``, not entering function or class bodies."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                stack.append(child)


def _bound(statement: ast.stmt) -> Iterator[str]:
    """Names a top-level statement binds in the module namespace."""
    for node in _shallow(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).split(".", 1)[0]
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield statement.name


def _span(statement: ast.stmt) -> tuple[int, int]:
    start = statement.lineno
    decorators = getattr(statement, "decorator_list", ())
    if decorators:
        start = min(start, *(d.lineno for d in decorators))
    end = statement.end_lineno or statement.lineno
    return start, end


def _lines(text: str) -> Iterator[str]:
    # Python ends lines at \n, \r\n and \r only (not at \f or \u2028, as
    # str.splitlines would), so split exactly where the tokenizer does.
    yield from io.StringIO(text, newline="")


def _ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\n", "\r")):
        return line[-1]
    return ""
