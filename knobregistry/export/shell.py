"""`--format sh`: a POSIX shell file to source; every value single-quoted, so none runs.

Escaping, by character class: inside single quotes a POSIX shell (bash, dash)
takes every byte literally, so control characters, ANSI escapes, `\\r`, `\\n`,
U+0085 and U+2028 are written as they are and read back exactly; only `'` is
written `'\\''`. NUL and lone surrogates are refused (common.check_variables).
The header's comment lines end only at `\\n`, and comment() starts a new `# `
line at every other line break.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from knobregistry.export.common import Export, ExportFormat, header


def sh_quote(value: str) -> str:
    """``value`` in single quotes; an embedded `'` becomes `'\\''` (close, escaped, reopen).

    Inside single quotes a POSIX shell expands nothing: no `$`, no backquote, no
    backslash escape, and a newline is part of the value.
    """
    return "'" + value.replace("'", "'\\''") + "'"


def sh_lines(env: Mapping[str, str], unset: Iterable[str]) -> list[str]:
    """One `export NAME='value'` per variable, in order, then one `unset NAME` each."""
    lines = [f"export {name}={sh_quote(value)}" for name, value in env.items()]
    lines.extend(f"unset {name}" for name in unset)
    return lines


def render_sh(export: Export, fmt: ExportFormat) -> str:
    """Header comment, one `export NAME='value'` per variable (sorted), then `unset` lines."""
    lines = [*header(export, fmt), *sh_lines(export.profile.env, export.unset)]
    return "\n".join(lines) + "\n"
