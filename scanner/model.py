"""The scanner's results: frozen, slotted records that flow to every later stage.

Positions are 1-based lines and columns, converted once from libcst's 0-based
columns. Paths are POSIX strings relative to the scan root.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from scanner.languages import Language


class ReadKind(str, Enum):
    """How a site reads the variable."""

    GET = "get"  # os.environ.get(N, d)
    GETENV = "getenv"  # os.getenv(N, d)
    SUBSCRIPT = "subscript"  # os.environ[N]
    CONTAINS = "contains"  # N in os.environ / N not in os.environ
    WRAPPER = "wrapper"  # a call to a wrapper function of the scanned tree
    ACCESSOR = "accessor"  # a call to an accessor named like getenv, from any module
    DESCRIPTOR = "descriptor"  # a constructor call of a class that keeps the name and reads it
    FIELD = "field"  # a registry's field read through it: envs.SGLANG_X.get()
    SETTING = "setting"  # a field of a settings model (pydantic's BaseSettings) that reads it
    EXPANSION = "expansion"  # shell: $N, ${N}, ${N:-d}, ${N:=d}, [[ -v N ]]
    REQUIRED = "required"  # shell ${N:?msg}, YAML ${N}: the run stops when N is unset
    INTERPOLATION = "interpolation"  # YAML: ${N:d}, ${N:-d} in a value, read when loaded
    BUILD_ARG = "build-arg"  # Dockerfile: ARG N=d, given by --build-arg when the image is built


class GateKind(str, Enum):
    """What the consuming code does with the value."""

    BOOLEAN = "boolean"  # on-like and off-like values select different behaviour
    PRESENCE = "presence"  # only set versus unset matters
    VALUE = "value"  # a size, a path, a backend name: no on/off
    LAUNCH = "launch"  # set by the launcher or scheduler (RANK, WORLD_SIZE): a fact, not a switch
    REQUIREMENT = "requirement"  # the code raises unless the value is one of Gate.on_values
    UNKNOWN = "unknown"  # the scanner could not decide: Gate.reason says why


class Polarity(str, Enum):
    """What turning the knob on does to the feature it names."""

    ENABLE = "enable"  # on turns the feature on (PRIMUS_HC_TRITON=1)
    DISABLE = "disable"  # on turns the feature off (X_DISABLE_FUSION=1)


class Role(str, Enum):
    """What a knob controls: what a recipe may do with it.

    A bitwise recipe turns kernel switches off, a framework's deterministic mode on and
    stack settings to their deterministic values; it never touches the others.
    """

    KERNEL = "kernel"  # how a result is computed: fused, Triton, autotuned, atomic, compiled
    DETERMINISM = "determinism"  # a framework's own deterministic mode
    STACK = "stack"  # a library's determinism setting, from the catalogue (scanner.determinism)
    FEATURE = "feature"  # what is computed or trained: architecture, loss, precision, data
    SAFETY = "safety"  # a check, validation, assertion, fingerprint
    LAUNCH = "launch"  # a launcher step: skip, install, dry run
    DEBUG = "debug"  # logging, profiling, tracing, debug-only paths
    VALUE = "value"  # a size, a path, a name: not a switch
    FACT = "fact"  # set by the launcher or the system: RANK, PATH, HOSTNAME
    UNKNOWN = "unknown"  # the scanner cannot tell: the reason says why


class WriteKind(str, Enum):
    """How a site writes the environment."""

    SET = "set"  # os.environ[N] = v
    SETDEFAULT = "setdefault"
    POP = "pop"
    DELETE = "del"
    PUTENV = "putenv"
    UNSETENV = "unsetenv"
    EXPORT = "export"  # shell: export N=v, declare -x N=v
    PREFIX = "prefix"  # shell: N=v command (for that command only)
    UNSET = "unset"  # shell: unset N
    PRINTED = "printed"  # a line a hook prints for its runner to export (env.N=v, $GITHUB_ENV)
    BLOCK = "block"  # an entry of a YAML mapping that sets the environment (ENV_VARS:, env:)


@dataclass(frozen=True, slots=True, kw_only=True)
class Gate:
    """The verdict of evaluating the expression that consumes a read.

    ``off_values`` and ``on_values`` list, in the scanner's candidate order,
    every probed value that turns the gate off or on; ``off_value`` and
    ``on_value`` are the preferred ones ("0" and "1" where those work).
    ``off_value`` is None for a presence gate that only unsetting turns off.
    ``reason`` says why an ``unknown`` gate could not be decided, or how an off
    value was chosen when the code names none.
    """

    kind: GateKind
    default_on: bool | None = None
    off_value: str | None = None
    on_value: str | None = None
    off_values: tuple[str, ...] = ()
    on_values: tuple[str, ...] = ()
    polarity: Polarity = Polarity.ENABLE
    reason: str | None = None
    choices: tuple[str, ...] = ()  # the values a dispatch names (shell ``case`` patterns)
    # For a requirement: the tests around the site it holds under (``args.deterministic_mode``).
    condition: str | None = None


VALUE_GATE = Gate(kind=GateKind.VALUE)
# The reason of a switch whose unset value is None, left to the code, and whose on and off
# values force it either way (``maybe_convert_bool(os.getenv(N))``).
TRI_STATE = "unset, the code decides (the value is None)"
LAUNCH_GATE = Gate(kind=GateKind.LAUNCH)


def unknown_gate(reason: str) -> Gate:
    """A verdict the scanner cannot decide, with its cause."""
    return Gate(kind=GateKind.UNKNOWN, reason=reason)


class DecisionKind(str, Enum):
    """Where the code decides something with a site's value."""

    READ = "read"  # the value the read itself gives, which a test around it decides with
    TEST = "test"  # a branch test in the site's scope: if, elif, while, a ternary, assert
    RETURN = "return"  # what the site's function returns, which its callers decide with
    STORE = "store"  # the value bound to a name or an attribute, which others test


Outcome = str | bool | int | float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """A place the code decides with a site's value, and what it decided under each probe.

    ``outcomes`` pairs each probed value of the variable (None: unset) with the value the
    decision took under it: a test's truth, what the function returned, what was stored.
    A test that holds the read is placed at the site (``holds_read``); another is placed at
    the ``def`` line of the function it sits in, with its text as ``ast.unparse`` writes
    it in ``name``. A return or a store is placed at the site, and ``name`` says what
    carries the value on (the function's qualified name; the name or attribute bound,
    with ``store`` saying which: ``global``, ``local``, ``attr``, ``other``). A read is
    placed at the site: its outcomes are what the read gave (the value, or what the
    wrapper or accessor returned), for the tests around it.
    """

    kind: DecisionKind
    line: int
    column: int
    outcomes: tuple[tuple[str | None, Outcome], ...]
    holds_read: bool = False
    name: str | None = None
    store: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Site:
    """One place in the source that reads a knob."""

    name: str
    path: str
    line: int
    column: int
    kind: ReadKind
    default: str | None  # the value the read falls back to when unset, as a string
    gate: Gate
    function: str  # the enclosing scope: Class.method, <module>; a YAML value's key path
    via: str | None = None  # qualified name of the wrapper, for wrapper calls
    language: Language = Language.PYTHON
    # What the value lands in: the name its value or test is bound to (Python), the flag it
    # is passed as or the variable it is assigned to (shell), the config key (YAML).
    target: str | None = None
    # A default computed at run time (``${X:-${HOME}/out}``), as written; ``default`` is None
    # then: its value is unknown, and nothing acts on it.
    default_computed: str | None = None
    # Where the code decides with the value (Python): what a role is proposed from.
    decisions: tuple[Decision, ...] = field(default=(), compare=False)
    # (value, flag): with the variable at that value, a launcher's test runs a branch that
    # passes the program this command-line flag (shell: ``--cuda-graph-impl=local``).
    passes: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    # The config path a launcher's Hydra or OmegaConf override hands the value to
    # (shell: ``model.attention_backend="${X}"``), looked up only in the trainer settings
    # the scanner documents (scanner.reach.trainer_keys).
    override: str | None = field(default=None, compare=False)

    @property
    def default_on(self) -> bool | None:
        return self.gate.default_on

    @property
    def polarity(self) -> Polarity:
        return self.gate.polarity

    @property
    def reason(self) -> str | None:
        return self.gate.reason

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.name)


@dataclass(frozen=True, slots=True, kw_only=True)
class Knob:
    """Every site of one variable, and the knob-level verdict derived from them.

    ``kind`` is the knob's: a switch (boolean or presence) when a site decides a
    branch with it, a launch fact, a value, or unknown when a site could not be
    decided and none decided it; ``reason`` says why for unknown.
    """

    name: str
    default_on: bool | None
    off_value: str | None
    on_value: str | None
    conflict: bool
    sites: tuple[Site, ...]
    conflict_reason: str | None = None
    kind: GateKind = GateKind.VALUE
    polarity: Polarity = Polarity.ENABLE
    reason: str | None = None
    role: Role = Role.UNKNOWN  # proposed from the code: what the knob controls
    role_reason: str | None = None  # the evidence for ``role``, or why it is unknown
    # The launcher writes that give it a value (shell, YAML: not Python code), by position.
    set_by: tuple[Write, ...] = ()
    # Variables that choose a kernel together with this one (scanner.reach.decision_tables):
    # the whole setting that leads away from it, this one included; set all of it or none.
    together: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class DynamicRead:
    """A read whose variable name the scanner could not resolve, and why."""

    path: str
    line: int
    column: int
    expression: str
    function: str
    reason: str = "the name is computed at run time"
    via: str | None = None  # the wrapper called, for a call whose name argument is unknown

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.expression)

    @property
    def shown(self) -> str:
        """The expression on one line, for a report (a call written over six lines is one
        finding, not six): each run of blanks and line breaks one blank, and at most
        ``SHOWN_CHARS`` characters."""
        text = " ".join(self.expression.split())
        return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


SHOWN_CHARS = 100


@dataclass(frozen=True, slots=True, kw_only=True)
class Write:
    """A place that writes the environment: recorded, never counted as a read."""

    name: str | None  # None when the name could not be resolved
    path: str
    line: int
    column: int
    kind: WriteKind
    function: str
    value: str | None = None  # the value written, when it is a known string
    via: str | None = None  # the setter function, for a call of one
    language: Language = Language.PYTHON
    # The condition the write sits under, as its source text, and as the values of other
    # variables that imply it (``when``: empty unless the whole condition is such equalities).
    condition: str | None = None
    when: tuple[tuple[str, str], ...] = ()
    # A value computed at run time (``$(nproc)``, ``${BASE}/x``), as written; ``value`` is
    # None then.
    computed: str | None = None

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.kind.value)

    @property
    def launches(self) -> bool:
        """Whether a launcher sets the variable here: a write in any language but Python,
        or an entry of a table of the launch environment that the tree's Python code installs
        (``WriteKind.BLOCK``, ``scanner.reach.table_writes``)."""
        return self.language is not Language.PYTHON or self.kind is WriteKind.BLOCK


@dataclass(frozen=True, slots=True, kw_only=True)
class ModeWrite:
    """A setting the tree's own deterministic mode writes: one known value, written by the
    tree's Python code only under a test of that mode (``scanner.reach.mode_writes``)."""

    name: str
    value: str
    path: str  # the write, and the line of the test of the mode it sits under
    line: int
    test_line: int
    mode: str  # what makes that test the deterministic mode, with file:line


@dataclass(frozen=True, slots=True)
class ScanError:
    """A file the scanner could not read or parse; the scan went on without it."""

    path: str
    message: str
    # A launcher with placeholders to fill in (``export DATA=<path>``), not a script bash
    # runs as it stands: the placeholder and its line (``<path> near line 3``); "" otherwise.
    template: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapperInfo:
    """A function of the scanned tree whose parameter names the variable it reads."""

    qualname: str  # dotted module path plus the function's qualified name
    path: str
    line: int
    name_param: str


@dataclass(frozen=True, slots=True)
class FileResult:
    """What one file contributes to a scan (before sites become knobs)."""

    sites: tuple[Site, ...] = ()
    dynamic: tuple[DynamicRead, ...] = ()
    writes: tuple[Write, ...] = ()
    # A YAML file's literal values: the type they give each key, sorted (key, type).
    config_keys: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class LauncherRead:
    """What a launcher language's reader found in one file (see scanner.languages)."""

    result: FileResult = field(default_factory=FileResult)
    error: ScanError | None = None
    depends: tuple[tuple[str, str], ...] = ()  # what it learnt from other files: (key, fact)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanStats:
    """How a scan went, as counters: not part of its result (a warm scan finds the same)."""

    files_parsed: int = 0  # files analysed in any round (each counted once)
    cache_hits: int = 0  # files whose every outcome came from the cache
    analyses: int = 0  # file analyses in all rounds: a file analysed again counts again
    rounds: int = 0  # rounds of the scan (a round runs the files a new wrapper may reach)
    position_fallbacks: int = 0  # analyses placed by libcst's positions: anchors mismatched


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanResult:
    """Everything one scan found, sorted and ready to report."""

    knobs: tuple[Knob, ...] = ()
    dynamic: tuple[DynamicRead, ...] = ()
    writes: tuple[Write, ...] = ()
    errors: tuple[ScanError, ...] = ()
    wrappers: tuple[WrapperInfo, ...] = ()
    files_scanned: int = 0
    # The settings the tree's own deterministic mode writes, for a recipe to write too.
    mode_writes: tuple[ModeWrite, ...] = ()
    # (path, dotted module name) of each Python file scanned, for what reads the tree's code
    # again (scanner.gated); paths as the sites'.
    modules: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)
    notes: tuple[str, ...] = field(default=(), compare=False)  # e.g. the cache was skipped
    stats: ScanStats = field(default=ScanStats(), compare=False)
    _by_name: Mapping[str, Knob] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Checks look knobs up by name inside loops over the registry and profiles.
        by_name: dict[str, Knob] = {}
        for knob in self.knobs:
            by_name.setdefault(knob.name, knob)
        object.__setattr__(self, "_by_name", by_name)

    def knob(self, name: str) -> Knob | None:
        """The knob called ``name``, or None when no site reads it."""
        return self._by_name.get(name)
