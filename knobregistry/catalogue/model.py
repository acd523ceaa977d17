"""The catalogue's records: one library setting that makes a run deterministic, with its source;
the names a library reads that were reviewed and left out of recipes; where its binaries are."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

MUST_STAY_UNSET = "must stay unset"


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
class ScannerName:
    """A setting the scanner knows by name (role ``stack``): its place in the scanner's table,
    and what its deterministic value gives, as a role reason says it."""

    order: int
    gives: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Flag:
    """One flag of a variable that holds a list of flags (XLA_FLAGS): its deterministic value
    and the source that defines it."""

    flag: str  # `--xla_gpu_autotune_level`
    deterministic: str  # `0`; empty for a list flag cleared (`--xla_gpu_enable_command_buffer=`)
    meaning: str
    source: str
    default: str | None = None  # the library's value when the flag is not given, where known

    @property
    def text(self) -> str:
        """The flag as the variable holds it: `--xla_gpu_autotune_level=0`."""
        return f"{self.flag}={self.deterministic}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One setting of one library, as the catalogue ships it."""

    library: str
    name: str
    kind: Kind
    platform: Platform
    meaning: str
    # The value that makes a run deterministic; None: the variable must stay unset (a tile or
    # split override, a tuner plugin), which a recipe writes as `unset NAME`.
    deterministic: str | bool | None
    cost: str
    versions: str
    source: str
    also: str | None = None
    default: str | None = None  # the library's value when the variable is unset, where known
    # The variable holds other settings too (XLA_FLAGS: a list of flags): a recipe line would
    # replace them, so the deterministic value is added by hand where the launcher sets it.
    shared: bool = False
    # The variable holds a list of flags and the catalogue names the deterministic ones: the
    # deterministic value is those flags in order, and a shell recipe adds them after the flags
    # the variable already holds (a repeated flag takes its last value).
    flags: tuple[Flag, ...] = ()
    packages: tuple[str, ...] = ()  # the distributions that bring the library; () = any project
    modules: tuple[str, ...] = ()  # their import names
    # The library's modules that read the variable to the entry's effect, and those that read
    # it to another: the setting applies only where the project names one of the first and
    # none of the second (TE JAX's NVTE_FUSED_ATTN, which TE PyTorch reads otherwise).
    read_by: tuple[str, ...] = ()
    read_otherwise_by: tuple[str, ...] = ()
    # A mode the library refuses in some of its configurations (vLLM's batch-invariant mode
    # raises for an attention backend chosen without it): proposed only where the project's
    # own code reads the variable, never to every project that uses the library.
    where_read: bool = False
    scanner: ScannerName | None = None  # None: the scanner does not know it by name

    @property
    def must_stay_unset(self) -> bool:
        """Whether a deterministic run has the variable unset (no value is safe)."""
        return self.deterministic is None

    @property
    def default_note(self) -> str | None:
        """`1 (the deterministic value is the opposite)`, or None where the default is unknown."""
        if self.default is None:
            return None
        if self.must_stay_unset or self.default != self.deterministic:
            return f"{self.default} (the deterministic value is the opposite)"
        return f"{self.default} (the same: a recipe pins it against a launcher that changes it)"

    @property
    def value_text(self) -> str:
        """The deterministic value as a person writes it (`Ring`, `True`, `must stay unset`)."""
        value = self.deterministic
        if value is None:
            return MUST_STAY_UNSET
        return str(value) if isinstance(value, bool) else value

    def label(self, seen: str | None) -> str:
        """`NCCL: collective algorithm; deterministic: Ring; this run: unset`."""
        run = "unset" if seen is None else repr(seen)
        return f"{self.library}: {self.meaning}; deterministic: {self.value_text}; this run: {run}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Reviewed:
    """Variables of a library that were read and left out of recipes, and why."""

    library: str
    names: tuple[str, ...]
    why: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Library:
    """One catalogue file: a library, and where its installed binaries name its variables."""

    name: str
    prefixes: tuple[str, ...] = ()  # NCCL_, RCCL_: what a variable of the library starts with
    binaries: tuple[str, ...] = ()  # globs of shared objects, as installed distributions list them
    reviewed: tuple[Reviewed, ...] = ()
