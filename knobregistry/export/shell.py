"""`--format sh`: a POSIX shell file to source; every value single-quoted, so none runs.

Escaping, by character class: inside single quotes a POSIX shell (bash, dash)
takes every byte literally, so control characters, ANSI escapes, `\\r`, `\\n`,
U+0085 and U+2028 are written as they are and read back exactly; only `'` is
written `'\\''`. NUL and lone surrogates are refused (common.check_variables).
The header's comment lines end only at `\\n`, and comment() starts a new `# `
line at every other line break.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from knobregistry.export.common import Export, ExportFormat, header


def sh_quote(value: str) -> str:
    """``value`` in single quotes; an embedded `'` becomes `'\\''` (close, escaped, reopen).

    Inside single quotes a POSIX shell expands nothing: no `$`, no backquote, no
    backslash escape, and a newline is part of the value.
    """
    return "'" + value.replace("'", "'\\''") + "'"


def sh_quote_printable(value: str) -> str:
    """``value`` as one shell word of printable characters, for a page people read (the
    recipes of `knobs docs`): single-quoted as sh_quote writes it when ``value`` is
    printable; else in `$'...'` (bash, zsh, ksh, POSIX.1-2024), with `\\` and `'` escaped
    and each character that is not printable (a line break, ESC, U+2028) written as the
    `\\xHH` escapes of its UTF-8 bytes, which read back the same whatever the locale."""
    if value.isprintable():
        return sh_quote(value)
    out: list[str] = []
    for character in value:
        if character in "\\'":
            out.append("\\" + character)
        elif character.isprintable():
            out.append(character)
        else:
            out.extend(f"\\x{byte:02x}" for byte in character.encode("utf-8"))
    return "$'" + "".join(out) + "'"


def sh_lines(
    env: Mapping[str, str], unset: Iterable[str], quote: Callable[[str], str] = sh_quote
) -> list[str]:
    """One `export NAME='value'` per variable, in order, then one `unset NAME` each."""
    lines = [f"export {name}={quote(value)}" for name, value in env.items()]
    lines.extend(f"unset {name}" for name in unset)
    return lines


def render_sh(export: Export, fmt: ExportFormat) -> str:
    """Header comment, one `export NAME='value'` per variable (sorted), then `unset` lines."""
    lines = [*header(export, fmt), *sh_lines(export.profile.env, export.unset)]
    return "\n".join(lines) + "\n"
