"""Run a triage: the baseline, each knob alone, then pairs, a ddmin bisection and/or
the search for the fastest combination that stays reproducible.

Runs of independent settings go to a pool of ``jobs`` workers; each setting is
judged as soon as its last run ends, and its run folders are then removed. A
journal (see journal.py) is told of every run and verdict as it comes, and
gives back those of an interrupted sweep, which are then not run again.

A setting is judged once per sweep: the bisection and the search take the verdict
of any setting an earlier part of the sweep judged (the same knobs on, so the same
environment) instead of running it again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Protocol

from knobregistry.registry import Sweep, Verdict
from knobregistry.triage import plan as plans
from knobregistry.triage.compare import CompareMode, judge
from knobregistry.triage.cost import KnobCost, sample, setting_cost
from knobregistry.triage.model import (
    Bisection,
    CostMetric,
    Outcome,
    Plan,
    Run,
    Search,
    SearchStep,
    Setting,
    TriageResult,
)
from knobregistry.triage.runner import Runner
from knobregistry.triage.slots import SlotPool, Slots


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    runs: int = 2
    jobs: int = 1
    pairs: bool = False
    bisect: bool = False
    cost: CostMetric | None = None  # measure this metric on every run
    search: bool = False  # --search fastest-bitwise
    slots: Slots | None = None  # what each of the `jobs` concurrent runs sets (slots.py)


class Progress(Protocol):
    """What the engine tells the display while it works."""

    def phase(self, sweep: Sweep, settings: int, runs: int | None) -> None:
        """A sweep starts (``runs`` is None when not known in advance: bisect)."""

    def run_done(self) -> None:
        """One run of the command ended."""

    def outcome(self, outcome: Outcome) -> None:
        """A setting was judged."""


class Journal(Protocol):
    """What the engine asks of and tells a sweep's journal (journal.Journal)."""

    def judged(self, number: int, setting: Setting) -> Outcome | None:
        """The verdict on the ``number``-th setting, when an earlier invocation judged it."""

    def finished(self, number: int, setting: Setting, index: int, folder: Path) -> Run | None:
        """Run ``index`` of that setting, when an earlier invocation finished it."""

    def started(self, number: int, index: int, pid: int) -> None:
        """Run ``index`` of the ``number``-th setting started: its process is ``pid``."""

    def run_done(self, number: int, setting: Setting, run: Run) -> None:
        """A run ended."""

    def outcome(self, number: int, outcome: Outcome) -> None:
        """A setting was judged."""


class NoJournal:
    """A Journal that keeps nothing."""

    def judged(self, number: int, setting: Setting) -> Outcome | None:
        return None

    def finished(self, number: int, setting: Setting, index: int, folder: Path) -> Run | None:
        return None

    def started(self, number: int, index: int, pid: int) -> None:
        pass

    def run_done(self, number: int, setting: Setting, run: Run) -> None:
        pass

    def outcome(self, number: int, outcome: Outcome) -> None:
        pass


class Quiet:
    """A Progress that shows nothing."""

    def phase(self, sweep: Sweep, settings: int, runs: int | None) -> None:
        pass

    def run_done(self) -> None:
        pass

    def outcome(self, outcome: Outcome) -> None:
        pass


def triage(
    plan: Plan,
    runner: Runner,
    mode: CompareMode,
    options: Options,
    environment: Mapping[str, str],
    progress: Progress | None = None,
    journal: Journal | None = None,
) -> TriageResult:
    """Run the triage of ``plan``; ``environment`` is the one the runs start from."""
    session = _Session(plan, runner, mode, options, environment, progress or Quiet())
    session.journal = journal or NoJournal()
    with ThreadPoolExecutor(max_workers=options.jobs, thread_name_prefix="knobs-run") as pool:
        session.pool = pool
        try:
            return session.run()
        except BaseException:
            runner.stop_all()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


class _Session:
    def __init__(
        self,
        plan: Plan,
        runner: Runner,
        mode: CompareMode,
        options: Options,
        environment: Mapping[str, str],
        progress: Progress,
    ) -> None:
        self.plan, self.runner, self.mode, self.options = plan, runner, mode, options
        self.environment, self.progress = environment, progress
        self.numbers = count(1)
        self.known: dict[frozenset[tuple[str, str | None]], Outcome] = {}  # by environment
        self.pool: ThreadPoolExecutor | None = None
        self.journal: Journal = NoJournal()
        self.slots = SlotPool(options.slots) if options.slots is not None else None

    def run(self) -> TriageResult:
        self.progress.phase(Sweep.BASELINE, 1, self.options.runs)
        (baseline,) = self.evaluate([plans.baseline()])
        if baseline.verdict is not Verdict.REPRODUCIBLE:
            return self.result(baseline)
        alone = self.sweep(Sweep.ALONE, plans.alone(self.plan))
        clean = tuple(o.setting.knobs[0] for o in alone if o.verdict is Verdict.REPRODUCIBLE)
        pairs = self.sweep(Sweep.PAIRS, plans.pairs(clean)) if self.options.pairs else None
        bisection = self.bisect(clean) if self.options.bisect else None
        search = self.search(baseline, alone) if self.options.search else None
        return self.result(baseline, alone, pairs, bisection, search)

    def result(
        self,
        baseline: Outcome,
        alone: Sequence[Outcome] = (),
        pairs: Sequence[Outcome] | None = None,
        bisection: Bisection | None = None,
        search: Search | None = None,
    ) -> TriageResult:
        return TriageResult(
            command=self.runner.typed,
            compare=str(self.mode),
            runs=self.options.runs,
            profile=self.plan.profile,
            candidates=self.plan.names,
            baseline=baseline,
            alone=tuple(alone),
            pairs=tuple(pairs) if pairs is not None else None,
            bisection=bisection,
            environment=self.plan.overrides(plans.baseline()),
            cost=self.options.cost,
            search=search,
        )

    def sweep(self, sweep: Sweep, settings: list[Setting]) -> list[Outcome]:
        self.progress.phase(sweep, len(settings), len(settings) * self.options.runs)
        return self.evaluate(settings)

    def bisect(self, knobs: tuple[str, ...]) -> Bisection:
        self.progress.phase(Sweep.BISECT, 0, None)
        if len(knobs) < 2:
            return Bisection(knobs, ())
        tests: list[Outcome] = []
        reused: list[Outcome] = []

        def fails(subset: tuple[str, ...]) -> bool:
            outcome, ran = self.judge(Sweep.BISECT, subset)
            (tests if ran else reused).append(outcome)
            return outcome.verdict is Verdict.BREAKS_BITWISE

        if not fails(knobs):
            return Bisection(knobs, tuple(tests), reused=tuple(reused))
        minimal = plans.ddmin(knobs, fails)
        return Bisection(knobs, tuple(tests), minimal, reused=tuple(reused))

    def judge(self, sweep: Sweep, knobs: tuple[str, ...]) -> tuple[Outcome, bool]:
        """The verdict on ``knobs`` on, and whether it was run now: a setting of the same
        environment judged earlier in the sweep is not run again."""
        known = self.known.get(self.key(Setting(sweep, knobs)))
        if known is not None:
            return known, False
        (outcome,) = self.evaluate([Setting(sweep, knobs)])
        return outcome, True

    def key(self, setting: Setting) -> frozenset[tuple[str, str | None]]:
        """What ``setting`` sets over the caller's environment: settings alike in it are one."""
        return frozenset(self.plan.overrides(setting).items())

    def search(self, baseline: Outcome, alone: Sequence[Outcome]) -> Search:
        """Turn the candidates reproducible alone back on one by one, the largest
        measured benefit first, keeping each whose growing combination still runs
        reproducibly as a whole; when one breaks it, name the knobs that break together
        by delta debugging. A knob measurably slower on than off stays off. ``alone``'s
        costs order the knobs; no setting the sweep judged is run again."""
        self.progress.phase(Sweep.SEARCH, 0, None)
        costs = {
            o.setting.knobs[0]: self.cost(o, baseline)
            for o in alone
            if o.verdict is Verdict.REPRODUCIBLE
        }
        slower = {
            k: c.off_over_on
            for k, c in costs.items()
            if c is not None and c.off_over_on < 1 and not c.within_noise
        }
        benefit = {
            k: (c.off_over_on if c is not None else None)
            for k, c in costs.items()
            if k not in slower
        }
        order = sorted(benefit, key=lambda k: (benefit[k] is None, -(benefit[k] or 0.0), k))
        tests: list[Outcome] = []

        def test(knobs: tuple[str, ...]) -> Outcome:
            outcome, ran = self.judge(Sweep.SEARCH, knobs)
            if ran:
                tests.append(outcome)
            return outcome

        def breaks(knobs: tuple[str, ...]) -> bool:
            return test(knobs).verdict is Verdict.BREAKS_BITWISE

        kept: list[str] = []
        verification: Outcome | None = None
        steps: list[SearchStep] = []
        for knob in order:
            combination = (*kept, knob)
            outcome = test(combination)
            if outcome.verdict is Verdict.REPRODUCIBLE:
                kept.append(knob)
                verification = outcome
                steps.append(SearchStep(knob=knob, outcome=outcome, kept=True))
            elif outcome.verdict is Verdict.BREAKS_BITWISE:
                culprit = plans.ddmin(combination, breaks)
                steps.append(SearchStep(knob=knob, outcome=outcome, kept=False, culprit=culprit))
            else:
                steps.append(SearchStep(knob=knob, outcome=outcome, kept=False))
        return Search(
            order=tuple((k, benefit[k]) for k in order),
            never=tuple(o.setting.knobs[0] for o in alone if o.verdict is not Verdict.REPRODUCIBLE),
            slower=tuple(slower.items()),
            steps=tuple(steps),
            tests=tuple(tests),
            verified=tuple(kept),
            verification=verification,
        )

    def cost(self, on: Outcome, baseline: Outcome) -> KnobCost | None:
        """What ``on``'s knobs cost when off (None: not measured)."""
        metric = self.options.cost
        return setting_cost(metric, on, baseline, self.options.runs) if metric else None

    def run_in_slot(self, number: int, folder: Path, index: int, env: Mapping[str, str]) -> Run:
        """One run, in a slot no other live run holds (when there are slots); the journal
        is told of its process as it starts."""

        def started(pid: int) -> None:
            self.journal.started(number, index, pid)

        if self.slots is None:
            return self.runner.run(folder, index, env, started)
        with self.slots.take() as slot:
            return self.runner.run(folder, index, {**env, **slot}, started)

    def evaluate(self, settings: Sequence[Setting]) -> list[Outcome]:
        """Run every setting ``runs`` times, concurrently; their outcomes, in order."""
        assert self.pool is not None
        runs = self.options.runs
        pending: dict[Future[Run], int] = {}
        numbers = [next(self.numbers) for _ in settings]
        finished: dict[int, list[Run]] = {p: [] for p in range(len(settings))}
        outcomes: dict[int, Outcome] = {}

        def done(position: int, run: Run) -> None:
            finished[position].append(run)
            self.progress.run_done()
            if len(finished[position]) == runs:
                outcomes[position] = self.conclude(
                    numbers[position], settings[position], finished[position]
                )

        for position, setting in enumerate(settings):
            number = numbers[position]
            journaled = self.journal.judged(number, setting)
            if journaled is not None:
                outcomes[position] = journaled
                self.known[self.key(setting)] = journaled
                self.progress.outcome(journaled)
                continue
            env = self.plan.environment(setting, self.environment)
            for index in range(1, runs + 1):
                folder = self.runner.folder(number, setting.label, index)
                kept = self.journal.finished(number, setting, index, folder)
                if kept is not None:
                    done(position, kept)
                    continue
                run_env = self.mode.environment(folder, env)
                future = self.pool.submit(self.run_in_slot, number, folder, index, run_env)
                pending[future] = position
        for future in as_completed(pending):
            position = pending[future]
            run = future.result()
            self.journal.run_done(numbers[position], settings[position], run)
            done(position, run)
        return [outcomes[p] for p in range(len(settings))]

    def conclude(self, number: int, setting: Setting, runs: list[Run]) -> Outcome:
        """Judge a setting whose runs all ended, journal it, and remove its run folders."""
        done = sorted(runs, key=lambda r: r.index)
        verdict, detail = judge(self.mode, done, self.runner.timeout)
        cost = self.options.cost
        samples = tuple(sample(cost, r) for r in done) if cost is not None else ()
        outcome = Outcome(
            setting=setting, verdict=verdict, runs=len(done), detail=detail or None, samples=samples
        )
        self.journal.outcome(number, outcome)
        self.known[self.key(setting)] = outcome
        self.runner.remove(done[0].folder.parent)  # the setting's folder, in triage's own
        self.progress.outcome(outcome)
        return outcome
