"""What a trace holds: frozen records, from the per-process files to the reconcile."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Level(str, Enum):
    """Where a read was seen."""

    PYTHON = "python"  # os.environ / os.getenv in a Python process of the tree
    C = "c"  # getenv / secure_getenv from native code, through the LD_PRELOAD interposer


class Seen(str, Enum):
    """What a read found."""

    VALUE = "value"
    UNSET = "unset"
    WITHHELD = "set"  # set, and its name looks like a secret: the value is never written
    LONG = "long"  # set, to a value too long to keep (python_hook.MAX_VALUE bytes)
    OTHERS = "others"  # values past the first few kept per (name, site), counted together


@dataclass(frozen=True, slots=True, order=True)
class TraceSite:
    """Where a read happened: a file and line (Python), or a library (C, no line)."""

    path: str  # absolute, or "<string>" and the like for code with no file
    line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Read:
    """Every read of one variable at one level that found one value, merged over processes."""

    name: str
    level: Level
    seen: Seen
    value: str | None  # the value, only when seen is VALUE
    count: int
    sites: tuple[TraceSite, ...]  # sorted
    # Every frame around the reads (their sites and callers), to match a scan's
    # dynamic reads: a wrapper called with a computed name reads inside the wrapper.
    frames: frozenset[TraceSite] = frozenset()

    @property
    def sort_key(self) -> tuple[str, str, bool, str, str]:
        """By name, level, then value; the reads of other values last."""
        others = self.seen is Seen.OTHERS
        return (self.name, self.level.value, others, self.seen.value, self.value or "")


@dataclass(frozen=True, slots=True)
class Copy:
    """A place that iterated the whole environment (a copy, ``items()``), and how often."""

    site: TraceSite
    count: int


@dataclass(frozen=True, slots=True)
class Unreadable:
    """What the record folder held that was not a record, and was skipped."""

    files: int = 0  # not regular files, too large, or past the bounds of a trace
    lines: int = 0  # not a record: not JSON, fields of a wrong type or length

    def __bool__(self) -> bool:
        return bool(self.files or self.lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class Trace:
    """What one traced run read, in its whole process tree."""

    command: tuple[str, ...]
    exit_status: int
    reads: tuple[Read, ...]  # sorted by name, level, value
    copies: tuple[Copy, ...] = ()  # sorted by site
    c_level: str | None = None  # None: traced; else why the C level was skipped
    processes: tuple[int, int] = (0, 0)  # record files of Python and C processes
    still_running: int = 0  # processes of the tree still alive when the trace was read
    unreadable: Unreadable = field(default_factory=Unreadable)
    unrecorded: int = 0  # reads the processes counted past their bounds, not kept

    def names(self) -> frozenset[str]:
        """Every variable read, at any level."""
        return frozenset(read.name for read in self.reads)

    def names_at(self, level: Level) -> frozenset[str]:
        """Every variable read at ``level``."""
        return frozenset(read.name for read in self.reads if read.level is level)


class MissKind(str, Enum):
    """Why a variable the run read is not in the static inventory."""

    SCANNER_MISS = "scanner-miss"  # read by Python code in the scope, at no site the scan found
    DYNAMIC = "dynamic"  # read at (or through) a dynamic read the scan listed
    OUTSIDE_SCOPE = "outside-scope"  # read by Python code outside the scope (a library)
    C_LEVEL = "c-level"  # read only through getenv: a knob of native code


@dataclass(frozen=True, slots=True, kw_only=True)
class Missing:
    """A variable the run read that the static inventory does not hold."""

    name: str
    kind: MissKind
    levels: tuple[Level, ...]
    sites: tuple[TraceSite, ...]
    registered: str | None = None  # "external" when the registry lists it as a library's


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolvedDynamic:
    """A dynamic read of the scan, and the names the run read there."""

    path: str  # as the scan shows it, relative to the registry's folder
    line: int
    expression: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NotRead:
    """A registered variable the run never read."""

    name: str
    entry: str  # "knob" or "external"


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileDifference:
    """A variable the run read with a value that is not the profile's."""

    name: str
    expected: str | None  # None: the profile wants it unset
    found: str | None  # None: it was unset (or set, when withheld)
    level: Level
    sites: tuple[TraceSite, ...]
    withheld: bool = False  # set, with a secret-looking name: its value was never recorded
    long: bool = False  # set, to a value too long to keep (and so not the profile's)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reconciled:
    """A trace held against the static inventory, the registry and a profile."""

    registry: str  # the registry file, relative to the current folder
    inventory: int  # knobs the static scan found
    missing: tuple[Missing, ...]
    resolved_dynamic: tuple[ResolvedDynamic, ...]
    not_read: tuple[NotRead, ...]
    profile: str | None = None
    differences: tuple[ProfileDifference, ...] = ()
    unverified: tuple[str, ...] = ()  # profile knobs read with a withheld (secret) value
    known: tuple[str, ...] = ()  # the registry's knobs and external variables, and the scan's
    prefixes: tuple[str, ...] = ()  # the project's prefixes (view.project_prefixes), sorted
