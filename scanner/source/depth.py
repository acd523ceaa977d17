"""Code nested too deep for the parser: refused before libcst sees it.

libcst's parser recurses once per level of nesting, on the C stack of the
process: about 1,250 nested brackets, or 7,000 operands of one ``and`` chain,
end the process with a segmentation fault that no ``except`` can catch, and the
analysis itself recurses through the tree. CPython refuses 200 nested brackets;
the scanner refuses code nested ``MAX_DEPTH`` deep, counted on the ``ast`` of
the statements libcst would see, as libcst nests them (an ``and`` chain as deep
as it has operands).
"""

from __future__ import annotations

import ast
import re

from scanner.source.anchors import build_anchors

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
