"""How long a number knobs reads may be: MAX_DIGITS, in any base, written in any file.

Python refuses to convert a decimal string of more than 4,300 digits (a ValueError that no
reader expected), converts a hexadecimal one of any length, and then cannot print it in
decimal. No count, line, seed or size needs more than 64 digits, so every reader of
numbers (JSON files, the registry's YAML, pyproject.toml) refuses one that has more, in
one line that says so.
"""

from __future__ import annotations

import re

MAX_DIGITS = 64
_PREFIXES = ("0x", "0o", "0b")


def digit_count(text: str) -> int:
    """The digits ``text`` (a number as written: a sign, a base prefix, underscores) holds."""
    body = text.strip().lstrip("+-").lower()
    for prefix in _PREFIXES:
        body = body.removeprefix(prefix)
    return sum(1 for c in body if c.isalnum())


def too_long(text: str) -> str | None:
    """Why the number written ``text`` is not read, or None when it may be."""
    count = digit_count(text)
    if count <= MAX_DIGITS:
        return None
    return f"a number of {count} digits, more than the {MAX_DIGITS} knobs reads"


LONG_RUN = re.compile(f"[0-9]{{{MAX_DIGITS + 1},}}")  # where such a number is in a text
