"""Text from code, registries and traced programs, made safe to print on a terminal."""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with control characters (escape bytes, line breaks) written as Python
    escapes, so that a name read from code cannot move the cursor or break the table."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
