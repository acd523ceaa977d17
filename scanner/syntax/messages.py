"""Messages for files that do not parse."""

from __future__ import annotations

import ast

import libcst as cst


def syntax_message(data: bytes, exc: cst.ParserSyntaxError) -> str:
    """Where the file's syntax error is, as CPython's parser places it.

    libcst's own message is the fallback, for the rare file that CPython accepts
    and libcst does not.
    """
    try:
        compile(data, "<scanned>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        line, column = error.lineno, error.offset
        if line is None and b"\0" in data:
            at = data.index(b"\0")  # Python 3.11 gives no position for a null byte
            line = data.count(b"\n", 0, at) + 1
            column = at - (data.rfind(b"\n", 0, at) + 1) + 1
        if line is None:
            return f"Syntax error: {error.msg}."
        return f"Syntax error at line {line}, column {column}: {error.msg}."
    except ValueError:
        pass
    return f"libcst cannot parse this file (line {exc.raw_line}): {exc.message}."
