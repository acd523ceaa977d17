"""`--format sh`: a POSIX shell file to source; every value single-quoted, so none runs."""

from __future__ import annotations

from knobregistry.export.common import Export, header


def sh_quote(value: str) -> str:
    """``value`` in single quotes; an embedded `'` becomes `'\\''` (close, escaped, reopen).

    Inside single quotes a POSIX shell expands nothing: no `$`, no backquote, no
    backslash escape, and a newline is part of the value.
    """
    return "'" + value.replace("'", "'\\''") + "'"


def render_sh(export: Export) -> str:
    """Header comment, one `export NAME='value'` per variable (sorted), then `unset` lines."""
    lines = header(export, "sh")
    lines.extend(f"export {name}={sh_quote(value)}" for name, value in export.profile.env.items())
    lines.extend(f"unset {name}" for name in export.unset)
    return "\n".join(lines) + "\n"
