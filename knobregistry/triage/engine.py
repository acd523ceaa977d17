"""Run a triage: the baseline, each knob alone, then pairs and/or a ddmin bisection.

Runs of independent settings go to a pool of ``jobs`` workers; each setting is
judged as soon as its last run ends, and its run folders are then removed.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Protocol

from knobregistry.registry import Sweep, Verdict
from knobregistry.triage import plan as plans
from knobregistry.triage.compare import CompareMode, judge
from knobregistry.triage.cost import sample
from knobregistry.triage.model import (
    Bisection,
    CostMetric,
    Outcome,
    Plan,
    Run,
    Setting,
    TriageResult,
)
from knobregistry.triage.runner import Runner
from knobregistry.triage.slots import SlotPool, Slots


@dataclass(frozen=True, slots=True)
class Options:
    runs: int = 2
    jobs: int = 1
    pairs: bool = False
    bisect: bool = False
    cost: CostMetric | None = None  # measure this metric on every run
    slots: Slots | None = None  # what each of the `jobs` concurrent runs sets (slots.py)


class Progress(Protocol):
    """What the engine tells the display while it works."""

    def phase(self, sweep: Sweep, settings: int, runs: int | None) -> None:
        """A sweep starts (``runs`` is None when not known in advance: bisect)."""

    def run_done(self) -> None:
        """One run of the command ended."""

    def outcome(self, outcome: Outcome) -> None:
        """A setting was judged."""


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
) -> TriageResult:
    """Run the triage of ``plan``; ``environment`` is the one the runs start from."""
    session = _Session(plan, runner, mode, options, environment, progress or Quiet())
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
        self.pool: ThreadPoolExecutor | None = None
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
        return self.result(baseline, alone, pairs, bisection)

    def result(
        self,
        baseline: Outcome,
        alone: Sequence[Outcome] = (),
        pairs: Sequence[Outcome] | None = None,
        bisection: Bisection | None = None,
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
        )

    def sweep(self, sweep: Sweep, settings: list[Setting]) -> list[Outcome]:
        self.progress.phase(sweep, len(settings), len(settings) * self.options.runs)
        return self.evaluate(settings)

    def bisect(self, knobs: tuple[str, ...]) -> Bisection:
        self.progress.phase(Sweep.BISECT, 0, None)
        if len(knobs) < 2:
            return Bisection(knobs, ())
        tests: list[Outcome] = []

        def fails(subset: tuple[str, ...]) -> bool:
            (outcome,) = self.evaluate([Setting(Sweep.BISECT, subset)])
            tests.append(outcome)
            return outcome.verdict is Verdict.BREAKS_BITWISE

        if not fails(knobs):
            return Bisection(knobs, tuple(tests))
        minimal = plans.ddmin(knobs, fails)
        return Bisection(knobs, tuple(tests), minimal)

    def run_in_slot(self, folder: Path, index: int, env: Mapping[str, str]) -> Run:
        """One run, in a slot no other live run holds (when there are slots)."""
        if self.slots is None:
            return self.runner.run(folder, index, env)
        with self.slots.take() as slot:
            return self.runner.run(folder, index, {**env, **slot})

    def evaluate(self, settings: Sequence[Setting]) -> list[Outcome]:
        """Run every setting ``runs`` times, concurrently; their outcomes, in order."""
        assert self.pool is not None
        runs = self.options.runs
        pending: dict[Future[Run], int] = {}
        for position, setting in enumerate(settings):
            number = next(self.numbers)
            env = self.plan.environment(setting, self.environment)
            for index in range(1, runs + 1):
                folder = self.runner.folder(number, setting.label, index)
                pending[self.pool.submit(self.run_in_slot, folder, index, env)] = position
        finished: dict[int, list[Run]] = {p: [] for p in range(len(settings))}
        outcomes: dict[int, Outcome] = {}
        for future in as_completed(pending):
            position = pending[future]
            finished[position].append(future.result())
            self.progress.run_done()
            if len(finished[position]) == runs:
                done = sorted(finished[position], key=lambda r: r.index)
                verdict, detail = judge(self.mode, done, self.runner.timeout)
                cost = self.options.cost
                samples = tuple(sample(cost, r) for r in done) if cost is not None else ()
                outcome = Outcome(settings[position], verdict, runs, detail or None, samples)
                outcomes[position] = outcome
                shutil.rmtree(done[0].folder.parent, ignore_errors=True)
                self.progress.outcome(outcome)
        return [outcomes[p] for p in range(len(settings))]
