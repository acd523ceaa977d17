"""The catalogue's records: one library setting that makes a run deterministic, with its source."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Platform(str, Enum):
    """Where a setting applies."""

    CUDA = "cuda"
    ROCM = "rocm"
    CPU = "cpu"
    ANY = "any"


class Kind(str, Enum):
    """How the library reads a setting."""

    VARIABLE = "variable"  # an environment variable
    CALL = "call"  # a function called once at start-up with the value
    ATTRIBUTE = "attribute"  # an attribute assigned at start-up


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One setting of one library, as the catalogue ships it."""

    library: str
    name: str
    kind: Kind
    platform: Platform
    meaning: str
    deterministic: str | bool
    cost: str
    versions: str
    source: str
    also: str | None = None
    # The variable holds other settings too (XLA_FLAGS: a list of flags): a recipe line would
    # replace them, so the deterministic value is added by hand where the launcher sets it.
    shared: bool = False
    packages: tuple[str, ...] = ()  # the distributions that bring the library; () = any project
    modules: tuple[str, ...] = ()  # their import names

    @property
    def value_text(self) -> str:
        """The deterministic value as a person writes it (`Ring`, `True`)."""
        value = self.deterministic
        return str(value) if isinstance(value, bool) else value

    def label(self, seen: str | None) -> str:
        """`NCCL: collective algorithm; deterministic: Ring; this run: unset`."""
        run = "unset" if seen is None else repr(seen)
        return f"{self.library}: {self.meaning}; deterministic: {self.value_text}; this run: {run}"
