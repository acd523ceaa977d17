"""`knobs check`: reconcile the code with the registry; exit 0 clean, 1 drift, 2 bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from knobregistry.check import Check, CheckResult, run_check, shown
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.profile_checks import check_profiles
from knobregistry.profiles.rules import PROFILE_RULES
from knobregistry.registry import Registry, RegistryError, find_registry, load_registry
from knobregistry.report.check_github import render_check_github, render_registry_problems_github
from knobregistry.report.check_json import render_check_json
from knobregistry.report.check_sarif import render_check_sarif
from knobregistry.report.check_text import print_check_rich, render_check_text

FORMATS = ("text", "json", "github", "sarif")
# What `knobs check` runs after the inventory, on the same scan.
CHECKS = (Check(PROFILE_RULES, check_profiles),)

registry_option = click.option(
    "--registry",
    "-r",
    "registry_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    metavar="PATH",
    help="The registry file. Default: registry.yaml here or in the nearest parent folder "
    "(or the file that [tool.knobs] registry names in pyproject.toml).",
)


def open_registry(explicit: Path | None) -> Registry:
    """Find and load the registry; raises RegistryError with every problem in it."""
    path = find_registry(explicit)
    return load_registry(path.absolute(), display=shown(path, Path.cwd()))


def fail_on_registry(error: RegistryError, fmt: str = "text") -> None:
    """Print every registry problem and exit 2."""
    if fmt == "github":
        click.echo(render_registry_problems_github(error.problems), nl=False)
    else:
        for problem in error.problems:
            click.echo(problem.render(), err=True)
    click.get_current_context().exit(ExitCode.USAGE)


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
    help="text: one line per problem and its fix; json: a stable document; github: "
    "workflow annotations; sarif: SARIF 2.1.0 for GitHub code scanning.",
)
def check_command(paths: tuple[Path, ...], registry_path: Path | None, fmt: str) -> None:
    """Check that the code and the registry agree.

    Scans the registry's scope (scan.paths, relative to the registry's folder,
    with its include, exclude and match patterns) and reports, one line each,
    every knob that is not registered, registered but no longer read, read with
    a default other than the registered one, or read with conflicting defaults;
    and every profile that no longer does what it promises.
    PATHS, when given, replace the scope's paths (and stale entries are then
    not checked). Codes are documented in docs/checks.md.

    Exit status: 0 in sync, 1 drift, 2 bad usage or a bad registry.
    """
    try:
        registry = open_registry(registry_path)
        result = run_check(registry, list(paths) or None, checks=CHECKS)
    except RegistryError as error:
        fail_on_registry(error, fmt)
        return
    _print(result, fmt)
    click.get_current_context().exit(ExitCode.DRIFT if result.drift else ExitCode.OK)


def _print(result: CheckResult, fmt: str) -> None:
    if fmt == "json":
        click.echo(render_check_json(result), nl=False)
    elif fmt == "github":
        click.echo(render_check_github(result), nl=False)
    elif fmt == "sarif":
        click.echo(render_check_sarif(result), nl=False)
    elif sys.stdout.isatty():
        print_check_rich(result, Console(highlight=False, soft_wrap=True))
    else:
        click.echo(render_check_text(result), nl=False)
