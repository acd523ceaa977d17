"""`knobs triage` as a use case: a SweepRequest in, the verdicts out.

`run_triage` resolves the request against the registry (the candidates, the compare
mode, the cost metric, the slots), refuses a sweep that cannot start, starts its journal
through the caller (which says where it is, or checks the journal it resumes), and runs
it. It prints nothing and exits nothing: the CLI says what it returns.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from knobregistry.registry import Registry
from knobregistry.triage import known_breaking
from knobregistry.triage.compare import CompareMode, parse_compare
from knobregistry.triage.cost import CostError, parse_cost
from knobregistry.triage.engine import Journal, Options, Progress, triage
from knobregistry.triage.executors import SlurmError, check_executor, make_runner
from knobregistry.triage.model import CostMetric, Plan, TriageResult
from knobregistry.triage.modes import CompareError
from knobregistry.triage.plan import PlanError, make_plan
from knobregistry.triage.request import SweepRequest
from knobregistry.triage.slots import SlotError, make_slots
from knobregistry.triage.sweep_header import Header


class Refused(Exception):
    """A sweep that cannot start as asked; the message says what to change."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Execution:
    """How the runs are made: no part of what the sweep is, so a resume may change it."""

    jobs: int = 1
    devices_per_run: int | None = None
    executor: str = "local"
    slurm_args: tuple[str, ...] = ()
    timeout: float | None = None


class SweepJournal(Journal, Protocol):
    """The journal a sweep runs with: what the engine asks of it, and where the runs go."""

    @property
    def runs_folder(self) -> Path:
        """The folder of the runs' own folders."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolved:
    """A request resolved against the registry: what the sweep runs."""

    header: Header  # the request as resolved, as its journal keeps it
    plan: Plan
    mode: CompareMode
    options: Options


def resolve(
    request: SweepRequest,
    registry: Registry,
    registry_shown: str,
    registry_sha256: str,
    execution: Execution,
    environment: Mapping[str, str],
    origin: Path,
) -> Resolved:
    """The sweep ``request`` asks for; raises Refused when it cannot start."""
    profile = request.profile
    if request.search is not None and profile is None and not request.knobs:
        profile = "bitwise"  # the search re-enables what the bitwise profile turns off
    try:
        mode = parse_compare(request.compare)
        plan = make_plan(registry, profile, request.knobs)
        cost = _cost(request)
        check_executor(execution.executor, execution.slurm_args, execution.devices_per_run)
        slots = make_slots(execution.jobs, execution.devices_per_run, environment)
    except (CompareError, PlanError, CostError, SlurmError, SlotError) as exc:
        raise Refused(str(exc)) from exc
    if profile is None and not request.allow_known_breaking:
        kept = known_breaking.kept_on(registry, plan, environment)
        if kept:
            raise Refused(known_breaking.refusal(registry, registry_shown, kept))
    resolved = dataclasses.replace(
        request,
        compare=str(mode),
        knobs=plan.names,
        profile=profile,
        cost=str(cost) if cost is not None else None,
    )
    header = Header(
        **resolved.values(),
        origin=str(origin),
        registry=registry_shown,
        registry_sha256=registry_sha256,
    )
    options = Options(
        runs=request.runs,
        jobs=execution.jobs,
        pairs=request.pairs,
        bisect=request.bisect,
        cost=cost,
        search=request.search is not None,
        slots=slots,
    )
    return Resolved(header=header, plan=plan, mode=mode, options=options)


def _cost(request: SweepRequest) -> CostMetric | None:
    if request.cost is None and request.cost_higher_is_better:
        raise CostError("--cost-higher-is-better goes with --cost regex:PATTERN.")
    text = request.cost
    if text is None and request.search is not None:
        text = "wall"  # the search orders the knobs by what they save
    return parse_cost(text, request.cost_higher_is_better) if text is not None else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Triaged:
    """A sweep run to its end: what it found, and what it ran."""

    result: TriageResult
    resolved: Resolved


def run_triage(
    request: SweepRequest,
    registry: Registry,
    execution: Execution,
    *,
    registry_shown: str,
    start: Callable[[Header], SweepJournal],
    progress: Progress,
    environment: Mapping[str, str],
    origin: Path,
) -> Triaged:
    """Resolve ``request`` (raises Refused before anything runs), start its journal through
    ``start`` (a new one, or the one resumed), and run the sweep."""
    sha256 = hashlib.sha256(registry.path.read_bytes()).hexdigest()
    resolved = resolve(request, registry, registry_shown, sha256, execution, environment, origin)
    header = resolved.header
    journal = start(header)
    runner = make_runner(
        execution.executor,
        header.command,
        origin,
        journal.runs_folder,
        execution.timeout,
        execution.slurm_args,
    )
    result = triage(
        resolved.plan, runner, resolved.mode, resolved.options, environment, progress, journal
    )
    return Triaged(result=result, resolved=resolved)
