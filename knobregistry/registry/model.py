"""The registry's data: frozen, slotted records built from a validated `registry.yaml`.

Every mapping keeps the file's order. Positions are 1-based; a problem with line 0
concerns the whole file (it could not be read, or was not found).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from pathlib import Path
from typing import TypeAlias

from scanner import Language, Polarity, Role, Settings

KeyPath: TypeAlias = tuple[str | int, ...]
JsonValue: TypeAlias = str | int | float | bool | list["JsonValue"] | dict[str, "JsonValue"] | None

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
EXCERPT_CHARS = 60  # the most of a file's own text that one message quotes


def cut(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text``, or its first ``limit`` characters and `...`: a message never echoes a file."""
    return text if len(text) <= limit else text[:limit] + "..."


def quote(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``repr(text)``; a longer text is cut to ``limit`` characters and its length given."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


class Triage(str, Enum):
    """A knob's verdict for bitwise determinism."""

    REPRODUCIBLE = "reproducible"
    BREAKS_BITWISE = "breaks-bitwise"
    UNTRIAGED = "untriaged"
    EXEMPT = "exempt"


class Pass(str, Enum):
    """The training pass a fused kernel runs in."""

    FORWARD = "forward"
    BACKWARD = "backward"
    BOTH = "both"


class Policy(str, Enum):
    """Which scanned knobs must be registered."""

    ALL = "all"
    DEFAULT_ON = "default-on"


class ProfileKind(str, Enum):
    """What a profile promises; later checks hold it to that promise."""

    BITWISE = "bitwise"
    REPRODUCIBLE = "reproducible"
    FAST = "fast"
    CUSTOM = "custom"


class SetAction(str, Enum):
    """What a profile's select rule does to the knobs it selects."""

    OFF = "off"  # set the gate's off value
    ON = "on"  # set the gate's on value
    DETERMINISTIC = "deterministic"  # the catalogue's deterministic value of a stack setting
    DEFAULT = "default"  # unset the variable, so the code's default applies


class Verdict(str, Enum):
    """The outcome of one recorded triage run."""

    REPRODUCIBLE = "reproducible"
    BREAKS_BITWISE = "breaks-bitwise"
    ERROR = "error"


class Sweep(str, Enum):
    """Which combination of knobs a triage run exercised."""

    BASELINE = "baseline"
    ALONE = "alone"
    PAIRS = "pairs"
    BISECT = "bisect"
    SEARCH = "search"


def format_key_path(key_path: KeyPath) -> str:
    """Render a key path as `knobs.NAME.triage`, `scan.paths[0]` or `config["debug.seed"]`.

    A key longer than EXCERPT_CHARS is shown cut, in brackets: `knobs["XXXX..."]`.
    """
    out = ""
    for part in key_path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.match(part) and len(part) <= EXCERPT_CHARS:
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(cut(part))}]"
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistryProblem:
    """One thing wrong with a registry file, at a 1-based line and column."""

    path: str
    line: int
    column: int
    key_path: KeyPath
    message: str

    def render(self) -> str:
        """`registry.yaml:12:5: knobs.X.triage: message` (no position when line is 0)."""
        where = f"{self.path}:{self.line}:{self.column}" if self.line > 0 else self.path
        key = format_key_path(self.key_path)
        return f"{where}: {key}: {self.message}" if key else f"{where}: {self.message}"

    def __str__(self) -> str:
        return self.render()

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, format_key_path(self.key_path), self.message)


MAX_PROBLEMS = 25  # shown of one registry: a file of 20,000 wrong keys is not echoed


class RegistryError(Exception):
    """A registry that cannot be used, with the problems found in it (the first
    MAX_PROBLEMS, then one that counts the rest: a secrets file linked as the registry,
    read as a mapping of wrong keys, is not echoed key by key)."""

    def __init__(self, problems: Sequence[RegistryProblem]) -> None:
        found = sorted(set(problems), key=lambda p: p.sort_key)
        if len(found) > MAX_PROBLEMS:
            rest = len(found) - (MAX_PROBLEMS - 1)
            more = f"{rest} more problems are not shown; fix these first."
            last = RegistryProblem(path=found[0].path, line=0, column=0, key_path=(), message=more)
            found = [*found[: MAX_PROBLEMS - 1], last]
        self.problems: tuple[RegistryProblem, ...] = tuple(found)
        super().__init__("\n".join(p.render() for p in self.problems))


@dataclass(frozen=True, slots=True)
class Gates:
    """What a knob switches: the fused kernel and the pass it runs in."""

    kernel: str
    pass_: Pass | None = None  # `pass` in the file; None when not stated


@dataclass(frozen=True, slots=True, kw_only=True)
class TriageRecord:
    """One recorded triage run (written by `knobs triage --record`, or by hand)."""

    date: date
    verdict: Verdict
    command: str | tuple[str, ...] | None = None
    runs: int | None = None
    compare: str | None = None
    sweep: Sweep | None = None
    combined_with: tuple[str, ...] = ()
    profile: str | None = None
    host: str | None = None
    gpu: str | None = None
    gpus: int | None = None  # how many GPUs the command saw
    hosts: tuple[str, ...] = ()  # every host, when the runs spanned more than one
    versions: Mapping[str, str] = field(default_factory=dict)
    versions_from: str | None = None  # the command's probe, or the Python that runs knobs
    difference: str | None = None
    diverges: str | None = (
        None  # checksums: the step, pass, module and tensor of the first difference
    )
    notes: str | None = None
    # A `knobs trace` file cited as evidence: file, sha256 and what it read of the knob.
    trace: Mapping[str, JsonValue] = field(default_factory=dict)
    # The code the knob gates when the run was recorded: a digest per unit (a function,
    # a method, `<module>`), by file (relative to the registry) and name; see scanner.gated.
    code: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """How a knob's triage verdict was reached."""

    hardware: str | None = None
    setup: str | None = None
    date: date | None = None
    compare: str | None = None
    source: str | None = None
    notes: str | None = None
    records: tuple[TriageRecord, ...] = ()


# The schema's pattern for a variable name (`envName`): a registry can hold no other name.
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def holds_name(name: str) -> bool:
    """Whether a registry can hold ``name`` (letters, digits and '_', not starting with a
    digit). `knobs init` leaves out every other name and `knobs check` asks for none."""
    return VARIABLE_NAME.match(name) is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class SiteRecord:
    """How one site reads a knob whose sites disagree, as `sites:` records it."""

    path: str  # relative to the registry's folder, POSIX
    function: str
    default: str | None
    default_on: bool | None
    switch: bool  # the site is a switch: `off_value` is stated (None: only unsetting)
    off_value: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class KnobEntry:
    """A registered knob: a variable the scanned code reads."""

    name: str
    triage: Triage
    gates: Gates | None = None
    default: str | None = None  # the value the code falls back to when unset
    default_on: bool | None = None  # None: not stated, or a value knob
    polarity: Polarity | None = None  # what turning it on does to its feature; None: not stated
    off_value: str | None = None  # the value that turns it off, when not the scanned one or "0"
    off_unset: bool = False  # `off_value: null`: only unsetting it turns it off (a presence gate)
    on_value: str | None = None  # the value that turns it on, when not the scanned one or "1"
    required: bool = False  # code needs it set (os.environ[N]): --unset-others leaves it alone
    role: Role | None = None  # what it controls; None: not stated
    role_proposed: bool = False  # `role: {proposed: ...}`: knobs init's proposal, unconfirmed
    role_reason: str | None = None  # the evidence for a proposed role
    undecided: str | None = None  # why the scanner could not decide its gate (knobs init)
    # Where the tree's launchers turn on a feature its code leaves off (knobs init).
    launched_on: str | None = None
    # The variables that choose a kernel together with it, each with its value (knobs init).
    together: tuple[tuple[str, str], ...] = ()
    sites: tuple[SiteRecord, ...] | None = None  # each site's read, where the sites disagree
    breaks: Pass | None = None  # the pass that is not bitwise reproducible
    reason: str | None = None
    expires: date | None = None
    owner: str | None = None
    cost: str | None = None  # the prose: `cost: "..."`, or `cost: {text: ...}`
    notes: str | None = None
    evidence: Evidence | None = None
    measured: MeasuredCost | None = None  # `cost: {measured: ...}`, from `knobs triage --cost`


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasuredCost:
    """What `knobs triage --cost` measured: how many times slower a run is with the knob off."""

    metric: str  # wall | regex:PATTERN
    off_over_on: float
    spread: float
    runs: int
    host: str | None = None
    date: date | None = None

    def render(self) -> str:
        """`1.95x slower off (wall; spread 9.5%, 2 runs, node-7, 2026-05-01)`."""
        way = "slower" if self.off_over_on >= 1 else "faster"
        where = ", ".join(x for x in (self.host, self.date.isoformat() if self.date else None) if x)
        noise = " within noise" if abs(self.off_over_on - 1) <= self.spread else ""
        return (
            f"{self.off_over_on:.2f}x {way} off{noise} ({self.metric}; spread "
            f"{self.spread:.1%}, {self.runs} runs{', ' + where if where else ''})"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ExternalKnob:
    """A variable that a library reads, not the scanned code."""

    name: str
    description: str
    library: str | None = None
    default: str | None = None
    set_by: str | None = None
    cost: str | None = None
    notes: str | None = None
    # The condition under which a launcher script sets it ({PRIMUS_DETERMINISTIC: "1"}),
    # sorted by name; `knobs check` keeps it true against the scanned launcher (KNB111).
    implied_by: tuple[tuple[str, str], ...] = ()
    role: Role | None = None  # Role.STACK: a catalogue setting `knobs init` proposed
    deterministic: str | None = None  # the value that makes the library deterministic
    must_stay_unset: bool = False  # instead: a deterministic run has it unset (catalogue)
    source: str | None = None  # where that was checked


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigKey:
    """A trainer-config key and the backend it belongs to."""

    name: str
    backend: str
    description: str
    default: JsonValue = None
    has_default: bool = False  # distinguishes `default: null` from no default
    defined_in: str | None = None
    argument: str | None = None  # a command-line argument (`--seed`), not a config-class field
    cost: str | None = None
    notes: str | None = None
    source: str | None = None  # where a catalogue setting (backend `stack`) was checked


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectRule:
    """Select knobs by property rather than by name, and set them."""

    set: SetAction
    match: tuple[str, ...] = ()
    default_on: bool | None = None
    triage: tuple[Triage, ...] = ()
    triage_not: tuple[Triage, ...] = ()
    role: tuple[Role, ...] = ()  # empty: kernel, determinism and stack knobs (RULE_ROLES)


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    """A named set of knob values, external values and config values."""

    name: str
    description: str
    kind: ProfileKind = ProfileKind.CUSTOM
    extends: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    config: Mapping[str, JsonValue] = field(default_factory=dict)
    select: tuple[SelectRule, ...] = ()
    # The run that verified the knobs this profile turns back on, together, as a whole
    # (`knobs triage --search fastest-bitwise --record`); None: never run as a whole.
    verified: TriageRecord | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanScope:
    """What `knobs check` scans; paths are relative to the registry's folder."""

    paths: tuple[str, ...] = (".",)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    match: tuple[str, ...] = ()
    policy: Policy = Policy.ALL
    launch_facts: tuple[str, ...] = ()  # more variables the launcher sets (globs)
    accessors: tuple[str, ...] = ()  # more callables that read the variable they name
    env_blocks: tuple[str, ...] = ()  # keys of YAML mappings that set the environment
    languages: tuple[tuple[str, Language], ...] = ()  # file-name glob -> how it is read

    def settings(self) -> Settings:
        """The scanner settings the scope gives (an empty include or env_blocks: the
        scanner's own, filled in by ``knobregistry.project.scan_for.settings_for``)."""
        return Settings(
            include=self.include,
            exclude=self.exclude,
            match=self.match,
            launch_facts=self.launch_facts,
            accessors=self.accessors,
            env_blocks=self.env_blocks,
            languages=self.languages,
        )


def nearest_position(
    positions: Mapping[KeyPath, tuple[int, int]], key_path: KeyPath
) -> tuple[int, int]:
    """The line and column of ``key_path``, or of its nearest ancestor in ``positions``
    (the top of the file when none is)."""
    path = key_path
    while path not in positions and path:
        path = path[:-1]
    return positions.get(path, (1, 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class Registry:
    """A loaded, valid registry."""

    path: Path
    root: Path  # the folder that holds the registry file
    version: int
    scan: ScanScope
    knobs: Mapping[str, KnobEntry]
    external: Mapping[str, ExternalKnob]
    config: Mapping[str, ConfigKey]
    profiles: Mapping[str, Profile]
    positions: Mapping[KeyPath, tuple[int, int]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def position(self, *key_path: str | int) -> tuple[int, int]:
        """The line and column of a key (or of its nearest ancestor that is in the file)."""
        return nearest_position(self.positions, tuple(key_path))

    def scan_paths(self) -> tuple[Path, ...]:
        """The scope's paths, joined to the registry's folder."""
        return tuple(self.root / p for p in self.scan.paths)
