"""What every command that reads the registry shares: its option, loading, and failing."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import click

from knobregistry._text.paths import shown
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.registry import Registry, RegistryError, find_registry, load_registry
from knobregistry.report.check_github import render_registry_problems_github

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


def fail_on_registry(error: RegistryError, fmt: str = "text") -> NoReturn:
    """Print every registry problem and exit 2."""
    if fmt == "github":
        click.echo(render_registry_problems_github(error.problems), nl=False)
    else:
        for problem in error.problems:
            click.echo(problem.render(), err=True)
    click.get_current_context().exit(ExitCode.USAGE)
