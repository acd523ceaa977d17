"""What a change does to the knobs: two scans and two registries in, one row per knob out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from knobregistry.diff.code import CodeChange
from knobregistry.registry import Registry, Triage
from knobregistry.registry.feature import feature_on_by_default, is_undecided
from knobregistry.registry.yaml_format import common_default
from scanner import GateKind, Knob, Polarity, ScanResult, Site

NOT_REGISTERED = "not registered"
EXTERNAL = "external"
_UNTRIAGED = (Triage.UNTRIAGED.value, NOT_REGISTERED)


class Change(str, Enum):
    """What happened to a knob between two revisions, in the order rows are listed."""

    ADDED = "added"
    REMOVED = "removed"
    FLIPPED = "flipped"  # on by default in one revision, not in the other
    DEFAULT = "default changed"  # another default value, the same on/off state
    MOVED = "moved"  # a file that read it no longer does, and another now does
    WIDER = "read in more files"  # every file that read it still does, and more do
    NARROWER = "read in fewer files"  # no other file reads it, and some no longer do
    TRIAGE = "retriaged"  # its registry entry's triage changed
    CODE = "code changed"  # code its latest record was measured on (`code:`) differs


ORDER = tuple(Change)


@dataclass(frozen=True, slots=True, kw_only=True)
class KnobState:
    """A knob at one revision: its gate, where it is read, and its triage status."""

    name: str
    default_on: bool | None
    default: str | None  # the default every site falls back to; None if none or they differ
    off_value: str | None
    on_value: str | None
    files: tuple[str, ...]  # files that read it, relative to the current folder, sorted
    first: str  # `path:line` of its first site
    triage: str  # the registry's status, `external`, or `not registered`
    kind: GateKind = GateKind.VALUE  # the scanner's: a switch, a value, a launch fact, unknown
    polarity: Polarity = Polarity.ENABLE  # the registry's when it states one, else the scan's

    @property
    def undecided(self) -> bool:
        return self.kind is GateKind.UNKNOWN

    @property
    def feature_on(self) -> bool | None:
        """Whether the feature the knob gates is on by default."""
        return feature_on_by_default(self.default_on, self.polarity)


@dataclass(frozen=True, slots=True, kw_only=True)
class KnobChange:
    """Everything that changed for one knob."""

    name: str
    changes: tuple[Change, ...]
    base: KnobState | None
    head: KnobState | None
    code: CodeChange | None = None  # with Change.CODE: what changed of its recorded code

    @property
    def first_registered(self) -> bool:
        """Only its triage changed, and it was not registered before (a first adoption)."""
        return (
            self.changes == (Change.TRIAGE,)
            and self.base is not None
            and self.base.triage == NOT_REGISTERED
        )

    @property
    def blocking(self) -> bool:
        """A knob whose feature became on by default (new, or flipped), or a new knob the
        scanner could not decide, that is not triaged."""
        head = self.head
        if head is None or head.triage not in _UNTRIAGED:
            return False
        if head.undecided:
            return Change.ADDED in self.changes
        if head.feature_on is not True:
            return False
        return Change.ADDED in self.changes or Change.FLIPPED in self.changes


@dataclass(frozen=True, slots=True, kw_only=True)
class KnobDiff:
    """The knob changes between two revisions, one row per knob, ordered by change and name."""

    base: str
    head: str
    registry: str  # the registry file, relative to the current folder
    rows: tuple[KnobChange, ...]
    notes: tuple[str, ...] = ()  # what the diff leaves out (uncommitted registry changes)

    def count(self, change: Change) -> int:
        """Rows of the table (first registrations left out) whose first change is ``change``."""
        return sum(1 for row in self.listed if row.changes[0] is change)

    @property
    def listed(self) -> tuple[KnobChange, ...]:
        """The rows shown one per knob: every row but the first registrations."""
        return tuple(row for row in self.rows if not row.first_registered)

    @property
    def first_registered(self) -> tuple[KnobChange, ...]:
        """Knobs whose only change is being registered for the first time, shown as one group."""
        return tuple(row for row in self.rows if row.first_registered)

    @property
    def blocking(self) -> tuple[KnobChange, ...]:
        return tuple(row for row in self.rows if row.blocking)


def states(
    scan: ScanResult, registry: Registry | None, where: Callable[[str], str]
) -> dict[str, KnobState]:
    """Each scanned knob's state; ``where`` turns a scan path into one the user reads."""
    return {k.name: _state(k, registry, where) for k in scan.knobs}


def _state(knob: Knob, registry: Registry | None, where: Callable[[str], str]) -> KnobState:
    first: Site = knob.sites[0]
    return KnobState(
        name=knob.name,
        default_on=knob.default_on,
        default=common_default(knob),
        off_value=knob.off_value,
        on_value=knob.on_value,
        files=tuple(sorted({where(s.path) for s in knob.sites})),
        first=f"{where(first.path)}:{first.line}",
        triage=triage_of(registry, knob.name),
        kind=GateKind.UNKNOWN if is_undecided(knob) else knob.kind,
        polarity=_polarity(registry, knob),
    )


def _polarity(registry: Registry | None, knob: Knob) -> Polarity:
    entry = registry.knobs.get(knob.name) if registry is not None else None
    if entry is not None and entry.polarity is not None:
        return entry.polarity
    return knob.polarity


def triage_of(registry: Registry | None, name: str) -> str:
    if registry is not None and name in registry.knobs:
        return registry.knobs[name].triage.value
    if registry is not None and name in registry.external:
        return EXTERNAL
    return NOT_REGISTERED


def compare(
    base: Mapping[str, KnobState],
    head: Mapping[str, KnobState],
    code: Mapping[str, CodeChange] | None = None,
) -> list[KnobChange]:
    """One KnobChange per knob that changed, sorted by its first change, then name;
    ``code``: the knobs whose recorded code changed (see diff/code.py)."""
    rows = []
    for name in sorted({*base, *head}):
        old, new = base.get(name), head.get(name)
        changes = _changes(old, new)
        gated = (code or {}).get(name) if old is not None and new is not None else None
        if gated is not None:
            changes = (*changes, Change.CODE)
        if changes:
            rows.append(KnobChange(name=name, changes=changes, base=old, head=new, code=gated))
    return sorted(rows, key=lambda r: (ORDER.index(r.changes[0]), r.name))


def _changes(old: KnobState | None, new: KnobState | None) -> tuple[Change, ...]:
    if old is None:
        return (Change.ADDED,)
    if new is None:
        return (Change.REMOVED,)
    found = []
    if old.default_on != new.default_on:
        found.append(Change.FLIPPED)
    elif old.default != new.default:
        found.append(Change.DEFAULT)
    if old.files != new.files:
        found.append(_where_changed(set(old.files), set(new.files)))
    if old.triage != new.triage:
        found.append(Change.TRIAGE)
    return tuple(found)


def _where_changed(old: set[str], new: set[str]) -> Change:
    """Moved only when a file stopped reading it and another started; else read in more
    (or fewer) files."""
    if old < new:
        return Change.WIDER
    if new < old:
        return Change.NARROWER
    return Change.MOVED
