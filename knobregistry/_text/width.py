"""How wide the output of a command may be: the one place every command asks.

On a terminal, its width; piped or redirected, `COLUMNS` when it holds a positive
integer, else 100. `COLUMNS` wins on a terminal too, as it does for `shutil` and rich,
so that a user can ask for a width anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

PIPED = 100


def columns_setting(environ: Mapping[str, str] | None = None) -> int | None:
    """`COLUMNS` as a positive integer, or None when it is unset or not one."""
    value = (os.environ if environ is None else environ).get("COLUMNS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    return None


def output_width(stream: TextIO) -> int:
    """The width for text written to ``stream`` (standard output or standard error)."""
    asked = columns_setting()
    if asked is not None:
        return asked
    try:
        if stream.isatty():
            size = os.get_terminal_size(stream.fileno()).columns
            if size > 0:
                return size
    except (OSError, ValueError, AttributeError):  # a test's capture, a closed stream
        pass
    return PIPED
