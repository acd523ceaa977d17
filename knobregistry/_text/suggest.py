"""Did-you-mean: the known name closest to a mistyped one, case mistakes first."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

# A code of `knobs check` as typed: KNB001, knb1, 001.
_CODE = re.compile(r"(?:knb)?(\w+)", re.IGNORECASE)


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


def closest_code(typed: str, codes: Iterable[str], prefix: str = "KNB") -> str | None:
    """The code ``typed`` most likely meant: the same number written with fewer or more
    zeros (KNB01, knb1), else the one code a single slip away (a digit wrong, missing,
    extra, or two swapped); None when none is, or several are (KNB999 means none)."""
    known = {c.casefold(): c for c in codes}
    found = _CODE.fullmatch(typed.strip())
    if found is None:
        return None
    digits = found.group(1)
    if digits.isdigit():
        padded = f"{prefix}{int(digits):03d}".casefold()
        if padded in known and known[padded] != typed:
            return known[padded]
    wanted = f"{prefix}{digits}".casefold()
    near = [code for folded, code in known.items() if _one_slip(wanted, folded)]
    return near[0] if len(near) == 1 else None


def _one_slip(typed: str, known: str) -> bool:
    """Whether ``known`` is one substitution, insertion, deletion or swap of two
    neighbours away from ``typed``."""
    if typed == known or abs(len(typed) - len(known)) > 1:
        return False
    if len(typed) == len(known):
        wrong = [i for i, (a, b) in enumerate(zip(typed, known, strict=True)) if a != b]
        if len(wrong) == 1:
            return True
        return (
            len(wrong) == 2
            and wrong[1] == wrong[0] + 1
            and typed[wrong[0]] == known[wrong[1]]
            and typed[wrong[1]] == known[wrong[0]]
        )
    short, long = sorted((typed, known), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
