"""`--format sh`: a POSIX shell file to source; every value single-quoted, so none runs.

Escaping, by character class: inside single quotes a POSIX shell (bash, dash)
takes every byte literally, so control characters, ANSI escapes, `\\r`, `\\n`,
U+0085 and U+2028 are written as they are and read back exactly; only `'` is
written `'\\''`. NUL and lone surrogates are refused (common.check_variables).
The header's comment lines end only at `\\n`, and comment() starts a new `# `
line at every other line break.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Mapping

from knobregistry.catalogue import for_name
from knobregistry.export.common import Export, ExportFormat, comment, header


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


def holds_flags(name: str) -> bool:
    """Whether the catalogue knows ``name`` as a variable that holds a list of flags
    (XLA_FLAGS), whose recipe value is added to the flags it already holds."""
    return any(e.flags for e in for_name(name))


def kept_flags(name: str, quoted: str) -> str:
    """The shell words that give ``name`` the flags it holds when the file is sourced, a
    space, then the flags ``quoted`` (one quoted word): `"${XLA_FLAGS:+$XLA_FLAGS }"'...'`.
    Inside double quotes the expansion is one word and runs nothing; the flags come last, so
    a flag given twice takes the recipe's value."""
    return f'"${{{name}:+${name} }}"{quoted}'


def sh_lines(
    env: Mapping[str, str], unset: Iterable[str], quote: Callable[[str], str] = sh_quote
) -> list[str]:
    """One `export NAME='value'` per variable, in order, then one `unset NAME` each; a
    variable that holds flags keeps the flags it holds and gets the value's after them."""
    lines = [
        f"export {name}={kept_flags(name, quote(value)) if holds_flags(name) else quote(value)}"
        for name, value in env.items()
    ]
    lines.extend(f"unset {name}" for name in unset)
    return lines


def flags_note(env: Mapping[str, str]) -> list[str]:
    """The comment that says which variables keep the flags they hold, and what that means."""
    names = [name for name in env if holds_flags(name)]
    if not names:
        return []
    return comment(
        textwrap.fill(
            f"{', '.join(names)}: the flags it holds when this file is sourced are kept, and the "
            "recipe's flags are added after them, so a flag given twice takes the recipe's value. "
            "A launcher that sets it after sourcing this file replaces them: add the recipe's "
            "flags to the launcher's value.",
            width=94,
            break_on_hyphens=False,
            break_long_words=False,
        )
    )


def render_sh(export: Export, fmt: ExportFormat) -> str:
    """Header comment, one `export NAME='value'` per variable (sorted), then `unset` lines."""
    env = export.profile.env
    lines = [*header(export, fmt), *flags_note(env), *sh_lines(env, export.unset)]
    return "\n".join(lines) + "\n"
