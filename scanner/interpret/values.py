"""The value domain of gate evaluation: concrete Python values plus two sentinels.

A value carries where it came from: ``env`` when it depends on the knob being
evaluated (data or control flow, through any read of it), ``site`` when it
depends on the read under study itself, ``params`` when it depends on parameters
of the function under analysis (which is how wrapper functions are recognised),
``assumed`` when it rests on another variable being unset, as the scanner takes it.
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


class Opaque:
    """A value the evaluator models but Python operators must not touch (an object,
    a function, a copy of the environment): comparing or combining one is UNKNOWN."""

    __slots__ = ()


class EnvironCopy(Opaque):
    """``os.environ.copy()``, ``dict(os.environ)``: reading it reads the environment."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<environ copy>"


ENVIRON_COPY: Final = EnvironCopy()


@dataclass(frozen=True, slots=True, kw_only=True)
class V:
    """A value with its provenance."""

    value: object
    env: bool = False
    params: frozenset[str] = NO_PARAMS
    site: bool = False  # depends on the value the site under study read
    assumed: bool = False  # rests on taking another variable as unset (what the scanner assumes)

    @property
    def known(self) -> bool:
        return self.value is not UNKNOWN and self.value is not RAISED

    @property
    def plain(self) -> bool:
        """Known, and a plain Python value that operators may combine."""
        return self.known and not isinstance(self.value, Opaque)

    @property
    def raised(self) -> bool:
        return self.value is RAISED


def derived(value: object, *sources: V) -> V:
    """A value computed from ``sources``, inheriting their provenance."""
    env = site = assumed = False
    params = NO_PARAMS
    for source in sources:
        env = env or source.env
        site = site or source.site
        assumed = assumed or source.assumed
        if source.params:
            params = params | source.params
    return V(value=value, env=env, params=params, site=site, assumed=assumed)


def truthiness(v: V) -> V:
    """``bool(v)`` when it can be told, keeping provenance."""
    if not v.known:
        return v
    if isinstance(v.value, Opaque):
        return derived(True, v)  # objects and functions are true
    try:
        return derived(bool(v.value), v)
    except Exception:
        return derived(RAISED, v)
