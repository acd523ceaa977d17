"""How counts are written in messages."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``1 knob``, ``2 knobs``: the count and the noun, plural unless it is one."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
