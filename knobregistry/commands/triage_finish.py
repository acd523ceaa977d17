"""The end of `knobs triage`: probe the host, record the verdicts, print them, and exit
with the status they call for (a signal here loses no result)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from enum import IntEnum
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console

from knobregistry.check import shown
from knobregistry.docsgen.follow import follow_docs
from knobregistry.lock import LockError, locked
from knobregistry.registry import Registry, RegistryError, load_registry
from knobregistry.triage import (
    Host,
    Recorded,
    RecordError,
    Status,
    TriageResult,
    record_triage,
    status_of,
)
from knobregistry.triage.probe import Probe, run_probe
from knobregistry.triage.report import print_table, render_json
from knobregistry.triage.signals import exit_status
from knobregistry.triage.trace_evidence import TraceEvidence


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
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


def finish(
    registry: Registry,
    result: TriageResult,
    record: bool,
    fmt: str,
    trace: TraceEvidence | None,
    evidence: Evidence,
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
            )
            _follow_docs(registry.path)
    except (RecordError, LockError) as exc:
        return None, str(exc)
    return recorded, None


def _follow_docs(path: Path) -> None:
    """Refresh the generated docs of the registry just recorded, saying so on stderr, so
    that the next `knobs check` does not fail on them (KNB204)."""
    try:
        registry = load_registry(path)
    except RegistryError:
        return  # the record is written; `knobs check` will say what is wrong with it
    for followed in follow_docs(registry, cwd=Path.cwd()):
        click.echo(f"knobs triage: {followed.message}", err=True)
