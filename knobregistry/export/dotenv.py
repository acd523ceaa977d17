"""`--format dotenv`: an env file that bash, python-dotenv and Docker Compose read alike.

Three readers, three grammars (python-dotenv: dotenv/parser.py and variables.py;
Compose: compose-go's dotenv/parser.go since v1.16, Docker Compose 2.20):

- bash (`set -a; . ./.env`): a bare word, `'...'` literally, `"..."` with `\\$`,
  `` \\` ``, `\\"` and `\\\\` unescaped and `$`, backquotes expanded.
- python-dotenv (`dotenv_values`): a bare value to the end of the line, trimmed,
  whitespace then `#` starting a comment; in `'...'` a backslash pairs with the
  next character and `\\\\`, `\\'` are unescaped; in `"..."` likewise with
  `\\\\ \\' \\" \\a \\b \\f \\n \\r \\t \\v` unescaped, `\\$` kept as two
  characters; in every value, quoted or not, `${NAME}` and `${NAME:-default}` are
  expanded; the file is read in text mode, so a carriage return becomes a line break.
- Compose: a bare value to the end of the line, trimmed, ` #` starting a comment,
  `$NAME` expanded; in `'...'` a backslash before `'` stands for `'` and any other is
  kept; in `"..."` the escapes of `\\\\`, `\\"`, `\\$`, `\\n`, ... and `$NAME` expanded.

Where all three agree, and so how a value is written:

- a plain value (letters, digits and `_ . , : / @ % + = ^ -`, or nothing) bare;
- a value without `'`, a backslash pair or a final backslash, single-quoted, raw:
  line breaks, control characters, `$`, backquotes and other backslashes included;
- else a value without `$` or a backquote, double-quoted, with a backslash before
  each backslash and `"`.

Refused, naming the variable: a carriage return; `${...}` as python-dotenv expands
it; and a value that needs double quotes (a `'`, a backslash pair or a final
backslash) and holds a `$` or a backquote, which no quoting writes for all three.
NUL and lone surrogates are refused before (common.check_variables). An env file
cannot unset a variable: those are listed in a comment.
"""

from __future__ import annotations

import json
import re

from knobregistry.export.common import Export, ExportError, ExportFormat, comment, header

_PLAIN = re.compile(r"[A-Za-z0-9_.,:/@%+=^-]*\Z")
# python-dotenv's interpolation (dotenv.variables._posix_variable), quotes or none.
_EXPANDED = re.compile(r"\$\{[^}:]*(?::-[^}]*)?\}")
_DOUBLE_ESCAPES = {"\\": "\\\\", '"': '\\"'}
_ELSEWHERE = "use --format sh or json"


def dotenv_quote(value: str) -> str:
    """``value`` as bash, python-dotenv and Compose all read it back (see the module docstring).

    Raises ExportError, saying why, for a value no quoting writes for all three.
    """
    if _PLAIN.match(value):
        return value
    if "\r" in value:
        raise ExportError(
            f"its value holds a carriage return, which python-dotenv reads as a line break; "
            f"{_ELSEWHERE}."
        )
    expanded = _EXPANDED.search(value)
    if expanded:
        raise ExportError(
            f"its value holds {json.dumps(expanded.group(0))}, which python-dotenv expands even "
            f"in single quotes; {_ELSEWHERE}."
        )
    if "'" not in value and "\\\\" not in value and not value.endswith("\\"):
        return f"'{value}'"
    if "$" in value or "`" in value:
        raise ExportError(
            "its value holds a single quote, a backslash pair or a final backslash (so it "
            "needs double quotes) and a $ or a backquote (which python-dotenv cannot escape "
            f"in them); {_ELSEWHERE}."
        )
    return '"' + "".join(_DOUBLE_ESCAPES.get(c, c) for c in value) + '"'


def render_dotenv(export: Export, fmt: ExportFormat) -> str:
    """Header comment, one `NAME=value` per variable (sorted), a comment for unset ones."""
    lines = header(export, fmt)
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
