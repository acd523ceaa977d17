"""Did-you-mean: the known name closest to a mistyped one, case mistakes first."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(name: str, known: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The name in ``known`` that ``name`` most likely meant: one equal to it but for
    case, else the closest by difflib (compared case-folded); None when none is close."""
    names = list(known)
    folded = {n.casefold(): n for n in reversed(names)}
    same = folded.get(name.casefold())
    if same is not None and same != name:
        return same
    close = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=cutoff)
    if close and folded[close[0]] != name:
        return folded[close[0]]
    return None
