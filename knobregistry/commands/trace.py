"""`knobs trace`: run a command and record every environment variable its process tree reads.

Exit status: the command's own (128 + N when signal N ended it; 127 when it cannot
be found); when it exits 0 and --profile is given, 1 if a variable the run read
does not hold the profile's value; 2 for bad usage, a bad registry, or a trace
file that cannot be written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from knobregistry._io.atomic import write_atomic
from knobregistry._io.cache import default_cache_dir
from knobregistry._io.files import FileError
from knobregistry._text.paths import shown
from knobregistry._text.printable import printable
from knobregistry._text.progress import reporting, stderr_reporter
from knobregistry._text.width import output_width
from knobregistry.commands.exit_codes import ExitCode, usage_error
from knobregistry.commands.registry_args import fail_on_registry, open_registry, registry_option
from knobregistry.commands.seconds import seconds_or_zero
from knobregistry.profiles import ProfileError, ResolvedProfile, resolve_profile
from knobregistry.project.scan_for import scan_for
from knobregistry.registry import Registry, RegistryError, find_registry
from knobregistry.registry.pyproject import PyprojectError
from knobregistry.report.trace import render_json, render_table
from knobregistry.trace import (
    GRACE,
    CommandError,
    Reconciled,
    Trace,
    native_level,
    reconcile,
    run_traced,
)
from knobregistry.trace.settings import trace_secrets
from knobregistry.trace.view import EVERYTHING, View, default_view, only_view
from scanner import ScanResult


@click.command("trace", context_settings={"allow_interspersed_args": False})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@registry_option
@click.option(
    "--profile",
    "-p",
    metavar="NAME",
    help="Fail (exit 1) when a variable the run read does not hold this profile's value.",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(("table", "json")),
    default="table",
    show_default=True,
    help="The report on standard error: a table for people, or the JSON trace.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Also write the JSON trace to FILE (atomically); the same reads give the same bytes.",
)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="List every variable the run read, system and interpreter ones (PATH, PYTHON*) and "
    "those only libraries read unset included; by default they are one summary line.",
)
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="PATTERN",
    help="List only the variables whose names match this glob (case-sensitive, as names are: "
    "'NCCL_*'); repeat it for more. Applies to the JSON trace too; the profile's "
    "differences are always listed.",
)
@click.option(
    "--grace",
    callback=seconds_or_zero,
    default=str(GRACE),
    show_default=True,
    metavar="SECONDS",
    help="After the command exits, wait this long for processes it left running "
    "(a resource tracker, a daemon) to finish what they read.",
)
def trace_command(
    command: tuple[str, ...],
    registry_path: Path | None,
    profile: str | None,
    fmt: str,
    out: Path | None,
    everything: bool,
    only: tuple[str, ...],
    grace: float,
) -> None:
    """Run COMMAND and record every environment variable its whole process tree reads.

    \b
      knobs trace -- python train.py --steps 1
      knobs trace --profile bitwise --out trace.json -- torchrun --nproc-per-node 8 train.py

    Python processes are traced through a sitecustomize on PYTHONPATH (os.environ and
    os.getenv), native code through an LD_PRELOAD getenv interposer built with the
    system C compiler. The command's output passes through; the report goes to
    standard error. With a registry (--registry, or registry.yaml found as `knobs
    check` finds it) the reads are held against the static scan of its scope. Values
    of secret-looking names (a part such as TOKEN, KEY, SECRET, PASSWORD, PASS, PWD,
    PAT, CREDENTIALS, AUTH, COOKIE, PRIVATE; more in [tool.knobs] trace_secrets) are
    never written.

    The table lists what matters to the project: the registry's knobs, the scan's, names
    with the project's prefixes, the stack's catalogued settings, and any other variable
    the run found set; system and interpreter variables, and those only libraries read
    unset, are one summary line (--all lists them, --only PATTERN picks names). The
    profile's differences come first. The JSON trace holds every read unless --only
    is given.
    """
    cwd = Path.cwd()
    width = output_width(sys.stderr)  # the report goes to standard error
    registry = _registry(registry_path, profile is not None)
    scan: ScanResult | None = None
    resolved: ResolvedProfile | None = None
    if registry is not None:
        try:
            with reporting(stderr_reporter()):  # progress: on a terminal, or a line now and then
                scan = scan_for(registry)
            resolved = resolve_profile(registry, profile) if profile is not None else None
        except RegistryError as error:
            fail_on_registry(error)
        except ProfileError as exc:
            usage_error("trace", str(exc))
    try:
        secrets = trace_secrets(registry.root if registry is not None else cwd)
    except PyprojectError as exc:
        usage_error("trace", str(exc))
    native = native_level(default_cache_dir())
    try:
        trace = run_traced(command, native, os.environ, grace, secrets)
    except CommandError as exc:
        click.echo(f"knobs trace: error: {printable(str(exc))}", err=True)
        sys.exit(exc.status)
    reconciled: Reconciled | None = None
    if registry is not None and scan is not None:
        reconciled = reconcile(trace, registry, scan, cwd=cwd, profile=resolved)
    view = _view(trace, reconciled, cwd, everything=everything, only=only)
    document = render_json(trace, reconciled, cwd, view if only else EVERYTHING)
    report = document if fmt == "json" else render_table(trace, reconciled, cwd, view, width)
    click.echo(report, nl=False, err=True)
    if out is not None:
        try:
            write_atomic(out, document)
        except FileError as exc:
            usage_error("trace", exc.message("write", shown(out, cwd)))
    sys.exit(_status(trace.exit_status, reconciled))


def _registry(explicit: Path | None, required: bool) -> Registry | None:
    """The registry named or found; None when none is found and none is required."""
    if explicit is None and not required:
        try:
            explicit = find_registry(None)
        except RegistryError:
            return None
    try:
        return open_registry(explicit)
    except RegistryError as error:
        fail_on_registry(error)


def _view(
    trace: Trace,
    reconciled: Reconciled | None,
    cwd: Path,
    *,
    everything: bool,
    only: tuple[str, ...],
) -> View:
    """What the report lists: the --only matches, everything, or by default what matters."""
    if only:
        return only_view(trace, only)
    return EVERYTHING if everything else default_view(trace, reconciled, cwd)


def _status(command_status: int, reconciled: Reconciled | None) -> int:
    """The command's status; 1 when it succeeded but the profile was not held."""
    if command_status == 0 and reconciled is not None and reconciled.differences:
        return int(ExitCode.DRIFT)
    return command_status
