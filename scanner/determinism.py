"""The determinism settings of the stack that the scanner knows by name: which library
variables make a run deterministic, and with which value. Their one source is knobregistry's
catalogue (knobregistry/catalogue/data/*.yaml), from which ``scanner.stack_settings`` is
generated.

A knob found in the scan under one of these names has the role ``stack``; a knob whose
launcher writes set two or more of them to these values is the framework's own
deterministic mode (role ``determinism``). The bitwise recipe sets a ``stack`` knob to
its value here and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from scanner.stack_settings import SETTINGS as STACK_SETTINGS


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """A library's determinism setting: the variable, its deterministic value, and why."""

    name: str
    value: str
    library: str
    effect: str


SETTINGS: Final[Mapping[str, Setting]] = MappingProxyType(
    {
        name: Setting(name=name, value=value, library=library, effect=effect)
        for name, value, library, effect in STACK_SETTINGS
    }
)

# How many catalogue settings a switch's writes must set before it counts as the
# framework's deterministic mode: one alone may be a coincidence (a launcher that pins
# NCCL_ALGO for speed), two are a recipe.
MODE_EVIDENCE: Final = 2


def setting(name: str) -> Setting | None:
    """The catalogue's entry for ``name``, or None."""
    return SETTINGS.get(name)


def deterministic_writes(writes: Iterable[tuple[str, str | None]]) -> tuple[Setting, ...]:
    """The catalogue settings among ``(name, value)`` writes that set their deterministic
    value, each once, in the order of the scanner's table (the catalogue's `scanner: order`)."""
    found = {name for name, value in writes if (s := SETTINGS.get(name)) and value == s.value}
    return tuple(s for name, s in SETTINGS.items() if name in found)
