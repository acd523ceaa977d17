"""`knobs check`: reconcile the code with the registry; exit 0 clean, 1 drift, 2 bad input."""

from __future__ import annotations

import sys
from datetime import date, datetime
from pathlib import Path

import click

from knobregistry._text.progress import reporting, stderr_reporter
from knobregistry._text.width import output_width
from knobregistry.check.run import CheckResult
from knobregistry.check.use_case import check_registry
from knobregistry.commands.exit_codes import ExitCode, usage_error
from knobregistry.commands.registry_args import fail_on_registry, open_registry, registry_option
from knobregistry.registry import RegistryError
from knobregistry.report.check_formats import CHECK_FORMATS, formats_help

FORMATS = tuple(CHECK_FORMATS)


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@registry_option
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help=formats_help(),
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Hide the findings this baseline accepts (matched on code, knob and file, not line); "
    "fail on new ones, and on listed ones that are gone (the baseline must shrink).",
)
@click.option(
    "--write-baseline",
    "write_path",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Write the current findings to FILE as the baseline, then report as --baseline FILE "
    "would. An existing baseline may only shrink, unless --force.",
)
@click.option("--force", is_flag=True, help="With --write-baseline: let the baseline grow.")
@click.option(
    "--today",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    metavar="YYYY-MM-DD",
    help="Judge waivers (`expires`) as of this day instead of today, to see which run out "
    "before a date.",
)
def check_command(
    paths: tuple[Path, ...],
    registry_path: Path | None,
    fmt: str,
    baseline_path: Path | None,
    write_path: Path | None,
    force: bool,
    today: datetime | None,
) -> None:
    """Check that the code and the registry agree.

    Scans the registry's scope (scan.paths, relative to the registry's folder,
    with its include, exclude and match patterns) and reports, one line each,
    every knob that is not registered, registered but no longer read, read with
    a default other than the registered one, or read with conflicting defaults;
    every profile that no longer does what it promises; every waiver past its
    `expires` date; and every generated doc block that differs from the registry.
    PATHS, when given, replace the scope's paths (and stale entries are then
    not checked). `knobs rule CODE` explains a code (`knobs rule`: every code).

    Exit status: 0 in sync, 1 drift, 2 bad usage, a bad registry or baseline.
    """
    context = click.get_current_context()
    day: date | None = today.date() if today is not None else None
    try:
        registry = open_registry(registry_path)
        with reporting(stderr_reporter()):  # a spinner on a terminal; piped, a count now and then
            checked = check_registry(
                registry,
                list(paths) or None,
                today=day,
                baseline=baseline_path,
                write_baseline=write_path,
                force=force,
            )
    except RegistryError as error:
        fail_on_registry(error, fmt)
    result = checked.result
    for note in result.notes:
        click.echo(f"knobs check: note: {note}", err=True)
    if checked.written is not None:
        click.echo(checked.written.render(), err=True)
    if checked.refused is not None:
        usage_error("check", checked.refused)
    _print(result, fmt)
    context.exit(ExitCode.DRIFT if result.drift else ExitCode.OK)


def _print(result: CheckResult, fmt: str) -> None:
    renderer = CHECK_FORMATS[fmt]
    if renderer.rich is not None and sys.stdout.isatty():
        from rich.console import Console  # rich only on a terminal

        renderer.rich(result, Console(highlight=False, width=output_width(sys.stdout)))
    else:
        click.echo(renderer.render(result), nl=False)
