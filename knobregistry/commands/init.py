"""`knobs init`: write a starting registry from a scan, never over an existing file unasked."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import click

from knobregistry._text.progress import reporting, stderr_reporter
from knobregistry.catalogue import Platform
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.init.use_case import InitError, InitRequest, plan_init, write_init
from knobregistry.report.init import summary_lines, written_lines


def _fail(message: str) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    click.get_current_context().exit(ExitCode.USAGE)


@click.command("init")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("registry.yaml"),
    show_default=True,
    metavar="PATH",
    help="The registry file to write.",
)
@click.option("--force", is_flag=True, help="Overwrite the output file if it exists.")
@click.option(
    "--match",
    "-m",
    multiple=True,
    metavar="PATTERN",
    help="Register only variables whose name matches this shell-style pattern "
    "('PRIMUS_*'); written to scan.match. Repeatable.",
)
@click.option(
    "--exclude",
    "-e",
    multiple=True,
    metavar="GLOB",
    help="Skip paths matching this glob (relative to the output file's folder); written "
    "to scan.exclude. Repeatable.",
)
@click.option(
    "--platform",
    type=click.Choice([p.value for p in Platform if p is not Platform.ANY]),
    help="The platform the project runs on, for the stack settings of one platform (cuDNN, "
    "rocBLAS, ...). Without it, with --environment the installed torch's build decides "
    "(2.5.1+rocm6.2: rocm); otherwise those settings are left out.",
)
@click.option(
    "--environment",
    is_flag=True,
    help="Also propose stack settings for the packages installed where knobs runs (run it in "
    "the project's environment), and let the installed torch's build decide the platform. "
    "Without it, only packages the project's requirements*.txt, pyproject.toml or code name.",
)
def init_command(
    paths: tuple[Path, ...],
    output: Path,
    force: bool,
    match: tuple[str, ...],
    exclude: tuple[str, ...],
    platform: str | None,
    environment: bool,
) -> None:
    """Write a starting registry for the knobs under PATHS (default: the current folder).

    Every knob found is registered `untriaged`, with the default its code falls
    back to. The scope (scan.paths) is PATHS, relative to the output file's
    folder, with policy `all`. An existing file is left alone unless --force.

    The stack's determinism settings from the shipped catalogue (`knobs catalogue`)
    that apply to the libraries the project uses are registered too, with role
    `stack` and their source, and the bitwise profile sets them.
    """
    request = InitRequest(
        paths=paths,
        output=output,
        force=force,
        match=match,
        exclude=exclude,
        platform=Platform(platform) if platform is not None else None,
        environment=environment,
    )
    try:
        with reporting(stderr_reporter()):  # the files done: on a terminal, or a line now and then
            plan = plan_init(request)
        for note in plan.result.notes:
            click.echo(f"knobs init: note: {note}", err=True)
        write_init(plan)
    except InitError as exc:
        _fail(str(exc))
    for line in written_lines(plan):
        click.echo(line)
    if plan.schema is not None and plan.schema.note is not None:
        click.echo(f"knobs init: note: {plan.schema.note}", err=True)
    for line in summary_lines(plan):
        click.echo(line)
