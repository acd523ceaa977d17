"""`knobs triage`: which knobs break bitwise reproducibility of a command, measured.

Exit status: 0 every setting reproducible; 1 a knob breaks reproducibility (alone or
in a combination); 2 bad usage, a bad registry, or --record could not write;
3 the baseline itself is not reproducible; 4 a run failed or timed out, so some
setting could not be judged (this outranks 1: the triage is incomplete);
128 + the signal when interrupted: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP. Every
run's process group is stopped on each of these; a signal after the runs (while
the host is probed, or the registry recorded) still prints the results. See
triage/signals.py for SIGKILL.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import date
from enum import IntEnum
from pathlib import Path
from typing import NoReturn

import click
from click.core import ParameterSource
from rich.console import Console

from knobregistry._io.lock import LockError, locked
from knobregistry._text.paths import shown
from knobregistry.commands import triage_journal
from knobregistry.commands.exit_codes import usage_error
from knobregistry.commands.jobs import TRIAGE_JOBS
from knobregistry.commands.registry_args import fail_on_registry, open_registry, registry_option
from knobregistry.commands.seconds import seconds
from knobregistry.docsgen.follow import follow_docs
from knobregistry.registry import Registry, RegistryError, load_registry
from knobregistry.report.triage import print_table, render_json
from knobregistry.report.triage_folder import FolderLines, finished, interrupted
from knobregistry.report.triage_progress import ConsoleProgress
from knobregistry.triage import (
    Host,
    Recorded,
    RecordError,
    Status,
    TriageResult,
    record_triage,
    status_of,
)
from knobregistry.triage.executors import EXECUTORS
from knobregistry.triage.journal import Journal, JournalError
from knobregistry.triage.modes import modes_help
from knobregistry.triage.plan import baseline
from knobregistry.triage.probe import Probe, find_probe, run_probe
from knobregistry.triage.request import Refused, SweepRequest
from knobregistry.triage.signals import exit_status, interruptible
from knobregistry.triage.sweep_folder import FolderRequest, clean
from knobregistry.triage.trace_evidence import (
    TraceEvidence,
    TraceEvidenceError,
    load_trace_evidence,
)
from knobregistry.triage.use_case import Execution, Sweep, open_sweep, run_sweep


class TriageExit(IntEnum):
    """The exit codes of `knobs triage`."""

    REPRODUCIBLE = 0
    BREAKS_BITWISE = 1
    USAGE = 2
    BASELINE_DIFFERS = 3
    ERROR = 4
    INTERRUPTED = 130


_EXIT = {
    Status.REPRODUCIBLE: TriageExit.REPRODUCIBLE,
    Status.BREAKS_BITWISE: TriageExit.BREAKS_BITWISE,
    Status.BASELINE_DIFFERS: TriageExit.BASELINE_DIFFERS,
    Status.BASELINE_ERROR: TriageExit.ERROR,
    Status.ERROR: TriageExit.ERROR,
}


@click.command("triage", context_settings={"allow_interspersed_args": False})
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@registry_option
@click.option(
    "--profile", "-p", metavar="NAME", help="Start from this profile, as `knobs export` writes it."
)
@click.option(
    "--knob",
    "-k",
    "knobs",
    multiple=True,
    metavar="NAME",
    help="Triage this knob (repeat for more). Default: every knob the profile turns off; "
    "without a profile, every registered switch.",
)
@click.option(
    "--runs",
    "-n",
    type=click.IntRange(min=2),
    default=SweepRequest.default("runs"),
    show_default=True,
    help="Runs per setting; all must match.",
)
@click.option(
    "--compare",
    "-c",
    "compare",
    default=SweepRequest.default("compare"),
    show_default=True,
    metavar="MODE",
    help=modes_help(),
)
@click.option(
    "--jobs",
    "-j",
    default="1",
    show_default=True,
    callback=TRIAGE_JOBS,
    help="Runs at the same time (at most 1024); each holds a slot, KNOBS_TRIAGE_SLOT (0..K-1), "
    "and with K > 1 its own MASTER_PORT (29500 + slot, or your MASTER_PORT + slot).",
)
@click.option(
    "--devices-per-run",
    type=click.IntRange(min=1),
    metavar="N",
    help="Give each slot N devices of its own, split from CUDA_VISIBLE_DEVICES (or "
    "HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES; else the count torch reports).",
)
@click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="local",
    show_default=True,
    help="local: a process here; slurm: each run a Slurm batch job (sbatch), from a "
    "folder the nodes share.",
)
@click.option(
    "--slurm-arg",
    "slurm_args",
    multiple=True,
    metavar="ARG",
    help="With --executor slurm: pass ARG to sbatch (repeat for more), e.g. "
    "--slurm-arg=--partition=gpu --slurm-arg=--gpus-per-node=8 --slurm-arg=--time=1:00:00.",
)
@click.option(
    "--timeout",
    callback=seconds,
    metavar="S",
    help="Stop a run after S seconds (its verdict is then `error`); with --executor slurm, "
    "S seconds after its job starts.",
)
@click.option("--pairs", is_flag=True, help="Also sweep every pair of knobs reproducible alone.")
@click.option(
    "--bisect",
    is_flag=True,
    help="Also turn every knob reproducible alone on at once and, if that breaks, find a "
    "minimal set responsible by delta debugging.",
)
@click.option(
    "--cost",
    "cost",
    metavar="METRIC",
    help="Also measure what each knob costs when off: wall (each run's wall time) or "
    "regex:PATTERN (the number its one capture group finds in stdout, e.g. "
    "'regex:tokens/s: ([0-9.]+)').",
)
@click.option(
    "--cost-higher-is-better",
    is_flag=True,
    help="With --cost regex:PATTERN: the number is a throughput (higher is faster).",
)
@click.option(
    "--search",
    type=click.Choice(("fastest-bitwise",)),
    help="Also search for the fastest combination that stays reproducible: turn the knobs "
    "reproducible alone back on, the largest --cost benefit first, verifying each growing "
    "combination (the profile defaults to bitwise, --cost to wall).",
)
@click.option(
    "--search-profile",
    default="bitwise-fast",
    show_default=True,
    metavar="NAME",
    help="With --search and --record: the profile to write the verified combination as.",
)
@click.option(
    "--allow-known-breaking",
    is_flag=True,
    help="Without --profile: triage even though the baseline keeps on a knob the registry "
    "records as breaks-bitwise (every setting then runs with it on).",
)
@click.option("--record", is_flag=True, help="Write the verdicts and evidence into the registry.")
@click.option(
    "--probe",
    "probe_text",
    metavar="COMMAND",
    help="With --record or --format json: how to learn the versions and hardware the command "
    "sees. Default: the command's own launcher and Python interpreter, running a probe with "
    "-c. A COMMAND ending in a Python interpreter gets `-c PROBE`; any other must print the "
    "probe's JSON.",
)
@click.option(
    "--trace",
    "trace_file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="With --record: cite this trace of a run (`knobs trace --out FILE -- COMMAND`) in "
    "each record: its path, digest, and what the run read of the knob.",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(("table", "json")),
    default="table",
    show_default=True,
    help="table: for people; json: one document for machines.",
)
@triage_journal.folder_options
@click.pass_context
def triage_command(ctx: click.Context, /, **_: object) -> None:
    """Run COMMAND under knob settings and find which knobs break bitwise reproducibility.

    \b
      knobs triage --profile bitwise --compare 'regex:lm loss' -- torchrun ... train.py
      knobs triage --knob TOY_FUSED_LINEAR_CE --jobs 2 --record -- python train.py
      knobs triage --cost 'regex:tokens/s: ([0-9.]+)' --cost-higher-is-better -- python train.py
      knobs triage --search fastest-bitwise --record -- python train.py
      knobs triage --resume .knobs/triage/20260101-120000-x1y2
      knobs triage --jobs 4 --devices-per-run 2 -- torchrun --standalone --nproc-per-node 2 ...
      knobs triage --jobs 4 --executor slurm --slurm-arg=--gpus-per-node=8 -- torchrun ...

    The baseline (the profile, every candidate knob off) runs --runs times; then each
    candidate alone is turned back on; --pairs and --bisect try combinations; --cost
    measures what each knob costs when off, over the same runs; --search finds the
    fastest set that can be turned back on together and stay reproducible. Every
    run has its own temporary working directory; arguments naming files in the
    current folder are passed as absolute paths. Every run and verdict is journaled in
    the triage folder (--dir) as it ends, so that --resume continues a sweep whose
    driver died without running again what finished. Concurrent runs (--jobs) hold
    slots: KNOBS_TRIAGE_SLOT, a MASTER_PORT each and, with --devices-per-run,
    devices of their own. --executor slurm submits each run as a Slurm batch job
    and cancels them on a timeout or Ctrl-C.

    Exit status: 0 reproducible; 1 a knob breaks reproducibility; 2 bad usage;
    3 the baseline is not reproducible; 4 a run failed or timed out.
    """
    params = ctx.params
    request = SweepRequest.from_values(params)
    if not request.command:
        raise click.UsageError("Missing argument 'COMMAND...'.")
    resumed: Journal | None = params["resume"]
    if resumed is not None and params["folder"] is not None:
        usage_error("triage", "--dir starts a sweep and --resume continues one; give one.")
    try:
        registry = open_registry(params["registry_path"])
    except RegistryError as error:
        fail_on_registry(error)
    trace = _trace(params["trace_file"], params["record"], registry)
    execution = Execution(**{f.name: params[f.name] for f in fields(Execution)})
    stderr = Console(stderr=True, highlight=False, soft_wrap=True)
    folder = FolderRequest(
        folder=params["folder"],
        resumed=resumed,
        yes=params["yes"],
        typed=ctx.get_parameter_source("command") is ParameterSource.COMMANDLINE,
    )
    sweep: Sweep | None = None

    with interruptible():
        try:
            with ConsoleProgress(stderr) as progress:
                sweep = open_sweep(
                    request,
                    registry,
                    execution,
                    registry_shown=shown(registry.path, Path.cwd()),
                    folder=folder,
                    events=FolderLines(),
                    environment=os.environ,
                    origin=Path.cwd(),
                )
                triaged = run_sweep(sweep, progress, os.environ)
        except Refused as exc:
            usage_error("triage", str(exc))
        except KeyboardInterrupt as exc:
            if sweep is None:
                raise
            interrupted(sweep.folder)
            click.echo("knobs triage: interrupted; every run was stopped.", err=True)
            sys.exit(exit_status(exc))
        except JournalError as exc:  # another sweep's verdict, or no write; every run stopped
            usage_error("triage", str(exc))
        finished(sweep.folder)
        evidence = _Evidence(
            probe=find_probe(request.command, Path.cwd(), params["probe_text"]),
            folder=sweep.folder.journal.runs_folder
            / "probe",  # in triage's own folder, removed with it
            environment=triaged.resolved.plan.environment(baseline(), os.environ),
            timeout=execution.timeout,
        )
        try:
            _finish(
                registry,
                triaged.result,
                params["record"],
                params["fmt"],
                trace,
                evidence,
                params["search_profile"],
            )
        finally:
            clean(sweep.folder)


def _trace(path: Path | None, record: bool, registry: Registry) -> TraceEvidence | None:
    """The trace --trace cites, read; exits 2 without --record or on a trace it cannot use."""
    if path is None:
        return None
    if not record:
        usage_error("triage", "--trace cites a trace in the records --record writes; add --record.")
    try:
        return load_trace_evidence(path, registry.root)
    except TraceEvidenceError as exc:
        usage_error("triage", str(exc))


@dataclass(frozen=True, slots=True, kw_only=True)
class _Evidence:
    """How to learn what the command sees (see triage/probe.py)."""

    probe: Probe
    folder: Path
    environment: Mapping[str, str]
    timeout: float | None

    def host(self) -> Host:
        host = run_probe(self.probe, Path.cwd(), self.folder, self.environment, self.timeout)
        if host.note is not None:
            click.echo(f"knobs triage: note: {host.note}.", err=True)
        return host


def _finish(
    registry: Registry,
    result: TriageResult,
    record: bool,
    fmt: str,
    trace: TraceEvidence | None,
    evidence: _Evidence,
    search_profile: str,
) -> NoReturn:
    """Probe the host, record, print the results, exit; a signal here loses no result."""
    host: Host | None = None
    recorded: Recorded | None = None
    failure: str | None = None
    interrupted: KeyboardInterrupt | None = None
    try:
        host = evidence.host() if record or fmt == "json" else None
        if record:
            recorded, failure = _record(registry, result, host, trace, search_profile)
    except KeyboardInterrupt as exc:
        interrupted = exc
        click.echo(
            f"knobs triage: interrupted after the runs; {_unrecorded(record, host)}.", err=True
        )
    try:
        if fmt == "json":
            click.echo(render_json(result, host, recorded), nl=False)
        else:
            print_table(result, Console(highlight=False, soft_wrap=True), recorded)
    except KeyboardInterrupt as exc:
        interrupted = interrupted or exc
    if interrupted is not None:
        sys.exit(exit_status(interrupted))
    if failure is not None:  # after the results: a long triage is not lost to a bad write
        click.echo(f"knobs triage: error: {failure}", err=True)
        sys.exit(TriageExit.USAGE)
    sys.exit(_EXIT[status_of(result)])


def _unrecorded(record: bool, host: Host | None) -> str:
    if not record:
        return "the results follow"
    if host is None:
        return "nothing was recorded"
    return "the registry was recorded in full or left as it was"


def _record(
    registry: Registry,
    result: TriageResult,
    host: Host | None,
    trace: TraceEvidence | None,
    search_profile: str,
) -> tuple[Recorded | None, str | None]:
    """What --record wrote, or why it wrote nothing."""
    if result.stopped:
        click.echo("knobs triage: nothing recorded: no knob was judged.", err=True)
        return None, None
    assert host is not None
    display = shown(registry.path, Path.cwd())
    code = _code(registry, result)
    try:
        with locked(registry.path, display):  # the docs follow this record, not another's
            recorded = record_triage(
                registry.path,
                result,
                host,
                date.today(),
                shown=display,
                trace=trace,
                search_profile=search_profile,
                code=code,
            )
            _follow_docs(registry.path)
    except (RecordError, LockError) as exc:
        return None, str(exc)
    return recorded, None


def _code(registry: Registry, result: TriageResult) -> dict[str, dict[str, dict[str, str]]]:
    """The code each candidate gates, for its records; none, with a note, when the
    registry's scope cannot be scanned."""
    from knobregistry.project.fingerprints import code_of  # the scanner: only to record

    try:
        return code_of(registry, result.candidates)
    except RegistryError as exc:
        click.echo(
            "knobs triage: note: the records keep no code (the registry's scope cannot be "
            f"scanned: {exc}); `knobs fingerprint --record` adds it once it can.",
            err=True,
        )
        return {}


def _follow_docs(path: Path) -> None:
    """Refresh the generated docs of the registry just recorded, saying so on stderr, so
    that the next `knobs check` does not fail on them (KNB204)."""
    from knobregistry.check.rule_table import render_codes  # only to record

    try:
        registry = load_registry(path)
    except RegistryError:
        return  # the record is written; `knobs check` will say what is wrong with it
    for followed in follow_docs(registry, cwd=Path.cwd(), codes=render_codes):
        click.echo(f"knobs triage: {followed.message}", err=True)
