"""The data of a triage: candidate knobs, settings, runs and their outcomes (frozen records)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from knobregistry.registry import Sweep, Verdict


@dataclass(frozen=True, slots=True)
class TriageKnob:
    """A knob under triage and the values that switch it (None: unset the variable)."""

    name: str
    on: str | None
    off: str | None


@dataclass(frozen=True, slots=True)
class Setting:
    """One configuration to run: the candidates turned back on over the baseline."""

    sweep: Sweep
    knobs: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """`baseline`, `TOY_A`, or `TOY_A + TOY_B`."""
        return " + ".join(self.knobs) if self.knobs else "baseline"


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What a triage starts from: the baseline environment and the candidate knobs.

    The baseline is ``env`` set and ``unset`` removed over the caller's environment;
    every candidate is off in it. A setting turns some candidates back on.
    """

    candidates: tuple[TriageKnob, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    unset: tuple[str, ...] = ()
    profile: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(knob.name for knob in self.candidates)

    def environment(self, setting: Setting, base: Mapping[str, str]) -> dict[str, str]:
        """The full environment of a run of ``setting``, over ``base`` (os.environ)."""
        env = dict(base)
        for name, value in self.overrides(setting).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return env

    def overrides(self, setting: Setting) -> dict[str, str | None]:
        """What ``setting`` sets over the caller's environment (None: unset), sorted by name."""
        changes: dict[str, str | None] = dict.fromkeys(self.unset)
        changes.update(self.env)
        knobs = {knob.name: knob for knob in self.candidates}
        for name in setting.knobs:
            changes[name] = knobs[name].on
        return dict(sorted(changes.items()))


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One finished run of the command: where it ran and how it ended."""

    index: int  # 1-based, within its setting
    folder: Path  # its own working directory
    stdout: Path
    stderr: Path
    returncode: int | None  # None when it timed out
    timed_out: bool = False
    wall_s: float = 0.0  # from its start to its exit (time.perf_counter)


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """The verdict on one setting, after all its runs.

    ``detail`` is the first difference between runs (breaks-bitwise), or what went
    wrong, with the end of the run's stderr (error).
    """

    setting: Setting
    verdict: Verdict
    runs: int
    detail: str | None = None
    samples: tuple[float | None, ...] = ()  # the --cost metric of each run (None: no value)


@dataclass(frozen=True, slots=True)
class CostMetric:
    """What --cost measures per run: `wall` time, or the number a regex captures in stdout."""

    kind: str  # wall | regex
    pattern: str = ""
    higher_is_better: bool = False  # a throughput, rather than a time

    def __str__(self) -> str:
        return f"regex:{self.pattern}" if self.kind == "regex" else self.kind


@dataclass(frozen=True, slots=True)
class Bisection:
    """A delta-debugging search over the knobs that were reproducible alone.

    ``tests`` are the settings it ran, in order; ``reused`` those it needed that an
    earlier sweep had judged (a knob alone, a pair), taken as they were. The first
    setting it needs turns every knob in ``knobs`` on (none when fewer than two knobs
    were reproducible alone). ``minimal`` is a minimal set of knobs that together break
    reproducibility: empty when everything on was reproducible, or that failed to run.
    """

    knobs: tuple[str, ...]
    tests: tuple[Outcome, ...]
    minimal: tuple[str, ...] = ()
    reused: tuple[Outcome, ...] = ()

    @property
    def runs(self) -> int:
        """Runs of the command the bisection spent (reused settings cost none)."""
        return sum(test.runs for test in self.tests)

    @property
    def start(self) -> Outcome | None:
        """The setting of every knob on together."""
        return self._of(self.knobs)

    @property
    def culprit(self) -> Outcome | None:
        """The setting of the minimal set, when one was found."""
        return self._of(self.minimal) if self.minimal else None

    def _of(self, knobs: tuple[str, ...]) -> Outcome | None:
        wanted = frozenset(knobs)
        return next(
            (o for o in (*self.tests, *self.reused) if frozenset(o.setting.knobs) == wanted), None
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchStep:
    """One knob the search tried to turn back on over the combination kept so far.

    ``outcome`` is the whole growing combination's verdict (an earlier result when that
    combination had already run). When it broke, ``culprit`` is a minimal set of its
    knobs that breaks together, found by delta debugging.
    """

    knob: str
    outcome: Outcome
    kept: bool
    culprit: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Search:
    """`--search fastest-bitwise`: the largest-benefit set of candidates that stays
    reproducible when turned back on together.

    ``order`` is the candidates reproducible alone, by measured benefit (how much
    faster the run is with the knob on; None: not measured), largest first;
    ``never`` the candidates that broke or failed alone, never turned back on.
    ``tests`` are the settings the search itself ran, in order; ``verified`` the
    combination kept, and ``verification`` the outcome that verified it as a whole
    (None when nothing could be kept).
    """

    order: tuple[tuple[str, float | None], ...]
    never: tuple[str, ...]
    slower: tuple[tuple[str, float], ...]
    steps: tuple[SearchStep, ...]
    tests: tuple[Outcome, ...]
    verified: tuple[str, ...]
    verification: Outcome | None = None

    @property
    def runs(self) -> int:
        return sum(test.runs for test in self.tests)


@dataclass(frozen=True, slots=True, kw_only=True)
class TriageResult:
    """Everything a triage ran and found. ``pairs`` / ``bisection`` are None when not asked."""

    command: tuple[str, ...]
    compare: str
    runs: int
    profile: str | None
    candidates: tuple[str, ...]
    baseline: Outcome
    alone: tuple[Outcome, ...] = ()
    environment: Mapping[str, str | None] = field(default_factory=dict)  # what the baseline sets
    pairs: tuple[Outcome, ...] | None = None
    bisection: Bisection | None = None
    cost: CostMetric | None = None  # what --cost measured; None when not asked
    search: Search | None = None  # --search fastest-bitwise; None when not asked

    @property
    def stopped(self) -> bool:
        """Whether the triage stopped after the baseline (it failed or was not reproducible)."""
        return self.baseline.verdict is not Verdict.REPRODUCIBLE

    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        """Every setting's outcome, in the order they were run."""
        bisect = self.bisection.tests if self.bisection is not None else ()
        search = self.search.tests if self.search is not None else ()
        return (self.baseline, *self.alone, *(self.pairs or ()), *bisect, *search)

    def runs_spent(self, sweep: Sweep | None = None) -> int:
        """Runs of the command spent in total, or in one sweep."""
        return sum(o.runs for o in self.outcomes if sweep is None or o.setting.sweep is sweep)


class Status(str, Enum):
    """What a triage found, as a whole; the CLI maps it to an exit code."""

    REPRODUCIBLE = "reproducible"  # every setting reproducible
    BREAKS_BITWISE = "breaks-bitwise"  # some knob, alone or in a combination, breaks
    ERROR = "error"  # some setting could not be judged: a run failed or timed out
    BASELINE_DIFFERS = "baseline-differs"  # nondeterminism outside the candidates
    BASELINE_ERROR = "baseline-error"  # the command fails even in the baseline


def status_of(result: TriageResult) -> Status:
    """The overall status; an incomplete triage (an error) outranks a finding."""
    if result.baseline.verdict is Verdict.BREAKS_BITWISE:
        return Status.BASELINE_DIFFERS
    if result.baseline.verdict is Verdict.ERROR:
        return Status.BASELINE_ERROR
    verdicts = {o.verdict for o in result.outcomes}
    if Verdict.ERROR in verdicts:
        return Status.ERROR
    if Verdict.BREAKS_BITWISE in verdicts:
        return Status.BREAKS_BITWISE
    return Status.REPRODUCIBLE
