"""How counts are written in messages."""

from __future__ import annotations

from collections.abc import Iterable


def counted(n: int, noun: str) -> str:
    """``1 knob``, ``2 knobs``: the count and the noun, plural unless it is one."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def nonzero(parts: Iterable[tuple[int, str]]) -> str:
    """The texts of the parts whose count is not 0, joined by "and" (``2 files and 1 line``)."""
    return " and ".join(text for n, text in parts if n)
