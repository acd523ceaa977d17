"""`knobs export`: write a profile as an env file, JSON or a trainer-config overlay."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from knobregistry._io.atomic import write_atomic
from knobregistry._io.files import FileError
from knobregistry._io.stdout import write_exactly
from knobregistry._text.paths import shown
from knobregistry.commands.exit_codes import ExitCode, usage_error
from knobregistry.commands.registry_args import fail_on_registry, open_registry, registry_option
from knobregistry.export import (
    NAMES,
    ExportError,
    Part,
    export_format,
    formats_help,
    render,
)
from knobregistry.export.use_case import ExportRequest, check_environment, export_profile
from knobregistry.profiles import ProfileError
from knobregistry.registry import RegistryError
from knobregistry.report.export import render_review, summary


@click.command("export")
@click.option("--profile", "-p", "profile", required=True, metavar="NAME", help="The profile.")
@registry_option
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(NAMES),
    default="sh",
    show_default=True,
    help=formats_help(),
)
@click.option(
    "--unset-others",
    is_flag=True,
    help="Also unset every registered knob and external variable the profile does not set, "
    "except the knobs the code needs set (`required: true`; with --scan, the scanned ones).",
)
@click.option(
    "--check-env",
    is_flag=True,
    help="Write nothing; exit 0 when this process's environment already matches the "
    "profile, 1 with one line per difference.",
)
@click.option(
    "--scan",
    "use_scan",
    is_flag=True,
    help="Scan the registry's scope first, so select rules also cover knobs not yet registered.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Write nothing and exit 2 when a rule would set a knob whose gate or role nobody has "
    "decided (for CI: the recipe is complete only when every such knob is decided).",
)
@click.option(
    "--skip-undecided",
    is_flag=True,
    hidden=True,
    help="What the export does without --strict (kept for scripts that pass it).",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Write nothing to source; print every variable the profile sets with its role and "
    "the evidence, and every knob it left as the code has it, and why.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to this file (atomically) instead of standard output.",
)
def export_command(
    profile: str,
    registry_path: Path | None,
    fmt: str,
    unset_others: bool,
    check_env: bool,
    use_scan: bool,
    strict: bool,
    skip_undecided: bool,
    explain: bool,
    output: Path | None,
) -> None:
    """Write the profile NAME of the registry as a file to source, or check the environment.

    \b
      knobs export --profile bitwise > env.sh && . ./env.sh
      knobs export --profile bitwise --format config > overlay.yaml
      knobs export --profile bitwise --format megatron-args > megatron-args.sh
      knobs export --profile bitwise --format python > knobs_bitwise.py
      knobs export --profile bitwise --check-env || exit 1
      knobs export --profile bitwise --explain

    A knob whose gate the scanner could not decide, or whose role nobody knows, is never
    set: where a rule would have set one, it is left as the code has it and named in the
    file's header and on standard error (with --strict, nothing is written and the export
    exits 2). Standard error says how many variables it set, by role, and what it left as
    the code has it.
    """
    if check_env and output is not None:
        usage_error("export", "--check-env writes nothing; leave out --output.")
    if explain and (check_env or output is not None):
        usage_error(
            "export",
            "--explain prints a review and writes nothing; leave out --check-env and --output.",
        )
    try:
        registry = open_registry(registry_path)
    except RegistryError as error:
        fail_on_registry(error)
    request = ExportRequest(
        profile=profile,
        registry_shown=shown(registry.path, Path.cwd()),
        unset_others=unset_others,
        scan=use_scan,
        strict=strict,
        review=explain,
    )
    try:
        if check_env:
            found = check_environment(registry, request, os.environ)
            for difference in found:
                click.echo(difference.render())
            sys.exit(ExitCode.DRIFT if found else ExitCode.OK)
        export = export_profile(registry, request)
        text = render_review(export) if explain else render(export, fmt)
    except RegistryError as error:  # the project's pyproject.toml, read for --scan
        fail_on_registry(error)
    except (ProfileError, ExportError) as exc:
        usage_error("export", str(exc))
    try:
        if output is None:
            write_exactly(text)
        else:
            write_atomic(output, text)
    except FileError as exc:
        where = shown(output, Path.cwd()) if output is not None else "standard output"
        usage_error("export", exc.message("write", where))
    if not explain and Part.VARIABLES in export_format(fmt).holds:
        for line in summary(export):
            click.echo(f"knobs export: {line}", err=True)
