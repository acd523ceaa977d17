"""`--format github`: lines to append to `$GITHUB_ENV` in a GitHub Actions step.

A one-line value is `NAME=value`, read literally to the end of the line. A value
with a line break uses the multi-line form `NAME<<DELIMITER`, the value's lines,
then `DELIMITER` alone on a line; the delimiter is derived from the value and
never occurs in it. The file has no comments (the runner rejects other lines) and
cannot unset a variable.

Escaping, by character class: none is needed, and none is done. The runner
(actions/runner, FileCommandManager.cs) reads the file as UTF-8 and splits lines
at `\\n` only; a value is the bytes after `=`, or the text between the heredoc's
first line and its delimiter line, less the newline before it. So control
characters, ANSI escapes, `\\r`, U+0085 and U+2028 come back exactly (a value
with `\\r` takes the heredoc form too). One caveat, the runner's: on Windows it
also ends a line at `\\r\\n`, so a value ending in `\\r` loses that `\\r` there.
NUL and lone surrogates are refused before rendering (common.check_variables).
"""

from __future__ import annotations

import hashlib

from knobregistry.export.common import Export, ExportError, ExportFormat


def delimiter(name: str, value: str) -> str:
    """A heredoc delimiter that occurs nowhere in ``value`` (stable from run to run)."""
    digest = hashlib.sha256(f"{name}={value}".encode()).hexdigest().upper()
    size = 16
    candidate = f"KNOBS_EOF_{digest[:size]}"
    while candidate in value:  # practically never; still, never emit an ambiguous file
        size += 8
        candidate = f"KNOBS_EOF_{digest[:size]}" if size <= len(digest) else candidate + "_"
    return candidate


def render_github(export: Export, fmt: ExportFormat) -> str:
    """One `NAME=value` or `NAME<<DELIMITER` block per variable, sorted."""
    if export.unset:
        raise ExportError(
            f"profile '{export.profile.name}' unsets {', '.join(export.unset)}, and $GITHUB_ENV "
            "can only set variables; export it with --format sh and source that in the step, "
            "or leave out --unset-others."
        )
    lines: list[str] = []
    for name, value in export.profile.env.items():
        if "\n" in value or "\r" in value:
            end = delimiter(name, value)
            lines.extend((f"{name}<<{end}", value, end))
        else:
            lines.append(f"{name}={value}")
    return "".join(f"{line}\n" for line in lines)
