"""`--format dotenv`: an env file for Docker Compose (`env_file:` or `.env`).

Compose's parser (compose-go's dotenv package) reads an unquoted value to the end
of the line, trimmed, with ` #` starting a comment and `$NAME` interpolated; a
single-quoted value literally (line breaks included), except that a backslash
before `'` stands for `'`; a double-quoted value with line breaks included, the
backslash escapes of `\\`, `"` and `$` (and `\\n`, `\\t`, ...), and `$NAME`
interpolated.

So a plain value (letters, digits and `_ . , : / @ % + = ^ -`) is written bare,
which `docker run --env-file` reads the same way; a value without `'` or a
backslash is single-quoted; any other value is double-quoted with a backslash
before each backslash, `"` and `$`. A shell that sources the file
(`set -a; . ./.env`) reads every one of these as Compose does and runs nothing,
except a backquote inside double quotes, so such a value is refused. An env file
cannot unset a variable: those are listed in a comment.

Escaping, by character class: control characters, ANSI escapes, `\\r`, U+0085 and
U+2028 are never bare (the plain set is ASCII), so they are written raw inside
single quotes, or inside double quotes when the value also holds `'` or a
backslash; both quotes keep them exactly for Compose and for a shell. NUL and
lone surrogates are refused (common.check_variables).
"""

from __future__ import annotations

import re

from knobregistry.export.common import Export, ExportError, comment, header

_PLAIN = re.compile(r"[A-Za-z0-9_.,:/@%+=^-]*\Z")
_DOUBLE_ESCAPES = {"\\": "\\\\", '"': '\\"', "$": "\\$"}


def dotenv_quote(value: str) -> str:
    """``value`` as Compose reads it back unchanged (see the module docstring).

    Raises ExportError for a value that needs double quotes and holds a backquote.
    """
    if _PLAIN.match(value):
        return value
    if "'" not in value and "\\" not in value:
        return f"'{value}'"
    if "`" in value:
        raise ExportError(
            "a value that holds a backquote and a single quote or backslash cannot be written "
            "safely in an env file (a shell that sources it would run the backquoted text); "
            "use --format sh or json."
        )
    return '"' + "".join(_DOUBLE_ESCAPES.get(c, c) for c in value) + '"'


def render_dotenv(export: Export) -> str:
    """Header comment, one `NAME=value` per variable (sorted), a comment for unset ones."""
    lines = header(export, "dotenv")
    for name, value in export.profile.env.items():
        try:
            lines.append(f"{name}={dotenv_quote(value)}")
        except ExportError as exc:
            raise ExportError(f"cannot write {name} in dotenv format: {exc}") from exc
    if export.unset:
        lines.extend(
            comment(
                "Not set here, so the code's defaults apply (an env file cannot unset a "
                "variable): " + ", ".join(export.unset)
            )
        )
    return "\n".join(lines) + "\n"
