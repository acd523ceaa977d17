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
        return f"Syntax error at line {error.lineno}, column {error.offset}: {error.msg}."
    except ValueError:
        pass
    return f"libcst cannot parse this file (line {exc.raw_line}): {exc.message}."
