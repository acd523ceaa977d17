"""`knobs triage` as a use case: a SweepRequest in, the verdicts out.

`open_sweep` resolves the request against the registry (the candidates, the compare
mode, the cost metric, the slots), refuses a sweep that cannot start, and starts its
journal (sweep_folder.py: a new one, or the one resumed, checked); `run_sweep` runs it.
They print nothing and exit nothing: the CLI says what they return.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from knobregistry.registry import Registry
from knobregistry.triage import known_breaking
from knobregistry.triage.compare import CompareMode, parse_compare
from knobregistry.triage.cost import CostError, parse_cost
from knobregistry.triage.engine import Options, Progress, triage
from knobregistry.triage.executors import SlurmError, check_executor, make_runner
from knobregistry.triage.model import CostMetric, Plan, TriageResult
from knobregistry.triage.modes import CompareError
from knobregistry.triage.plan import PlanError, make_plan
from knobregistry.triage.request import Refused, SweepRequest
from knobregistry.triage.slots import SlotError, make_slots
from knobregistry.triage.sweep_folder import Folder, FolderEvents, FolderRequest, start
from knobregistry.triage.sweep_header import Header


@dataclass(frozen=True, slots=True, kw_only=True)
class Execution:
    """How the runs are made: no part of what the sweep is, so a resume may change it."""

    jobs: int = 1
    devices_per_run: int | None = None
    executor: str = "local"
    slurm_args: tuple[str, ...] = ()
    timeout: float | None = None


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
class Sweep:
    """A sweep resolved and journaled, ready to run."""

    resolved: Resolved
    folder: Folder
    execution: Execution
    origin: Path


@dataclass(frozen=True, slots=True, kw_only=True)
class Triaged:
    """A sweep run to its end: what it found, and what it ran."""

    result: TriageResult
    resolved: Resolved


def open_sweep(
    request: SweepRequest,
    registry: Registry,
    execution: Execution,
    *,
    registry_shown: str,
    folder: FolderRequest,
    events: FolderEvents,
    environment: Mapping[str, str],
    origin: Path,
) -> Sweep:
    """Resolve ``request`` and start its journal (a new one, or the one resumed, checked);
    raises Refused before anything runs."""
    sha256 = hashlib.sha256(registry.path.read_bytes()).hexdigest()
    resolved = resolve(request, registry, registry_shown, sha256, execution, environment, origin)
    started = start(resolved.header, folder, events)
    return Sweep(resolved=resolved, folder=started, execution=execution, origin=origin)


def run_sweep(sweep: Sweep, progress: Progress, environment: Mapping[str, str]) -> Triaged:
    """Run the sweep ``open_sweep`` journaled, to its end."""
    resolved, execution = sweep.resolved, sweep.execution
    journal = sweep.folder.journal
    runner = make_runner(
        execution.executor,
        resolved.header.command,
        sweep.origin,
        journal.runs_folder,
        execution.timeout,
        execution.slurm_args,
    )
    result = triage(
        resolved.plan, runner, resolved.mode, resolved.options, environment, progress, journal
    )
    return Triaged(result=result, resolved=resolved)
