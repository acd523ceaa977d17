"""The value domain of gate evaluation: concrete Python values plus two sentinels.

A value carries where it came from: ``env`` when it depends on the knob being
evaluated (data or control flow), ``params`` when it depends on parameters of
the function under analysis (which is how wrapper functions are recognised).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


class _Sentinel:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


UNKNOWN: Final = _Sentinel("UNKNOWN")
"""A value the evaluator cannot compute (a call into unknown code, a loop variable)."""

RAISED: Final = _Sentinel("RAISED")
"""The evaluation raised (``int("yes")``, ``os.environ[N]`` with N unset)."""

NO_PARAMS: Final[frozenset[str]] = frozenset()


@dataclass(frozen=True, slots=True)
class V:
    """A value with its provenance."""

    value: object
    env: bool = False
    params: frozenset[str] = NO_PARAMS

    @property
    def known(self) -> bool:
        return self.value is not UNKNOWN and self.value is not RAISED

    @property
    def raised(self) -> bool:
        return self.value is RAISED


def derived(value: object, *sources: V) -> V:
    """A value computed from ``sources``, inheriting their provenance."""
    env = False
    params = NO_PARAMS
    for source in sources:
        env = env or source.env
        if source.params:
            params = params | source.params
    return V(value, env, params)


def truthiness(v: V) -> V:
    """``bool(v)`` when it can be told, keeping provenance."""
    if not v.known:
        return v
    try:
        return derived(bool(v.value), v)
    except Exception:
        return derived(RAISED, v)


# The values every read is probed with, besides "unset". Pairs at the same
# index are the on-like and off-like spellings of one convention.
ON_WORDS: Final = ("1", "true", "yes", "on", "True", "TRUE", "Yes", "YES", "On", "ON")
OFF_WORDS: Final = ("0", "false", "no", "off", "False", "FALSE", "No", "NO", "Off", "OFF")
EMPTY: Final = ""
PAIRS: Final = tuple(zip(ON_WORDS, OFF_WORDS, strict=True))
CANDIDATES: Final[tuple[str | None, ...]] = (None, *ON_WORDS, *OFF_WORDS, EMPTY)
OFF_ORDER: Final[tuple[str, ...]] = (*OFF_WORDS, EMPTY, *ON_WORDS)
ON_ORDER: Final[tuple[str, ...]] = (*ON_WORDS, *OFF_WORDS, EMPTY)
