"""`knobs diff BASE [HEAD]`: the knobs a change adds, removes, flips, spreads or moves; exit 1
if unsafe."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from knobregistry._text.width import output_width
from knobregistry.commands.exit_codes import ExitCode, usage_error
from knobregistry.commands.registry_args import fail_on_registry, registry_option
from knobregistry.diff import DiffError, knob_diff
from knobregistry.registry import RegistryError, find_registry
from knobregistry.report.diff import render_diff_markdown, render_diff_text


@click.command("diff")
@click.argument("base")
@click.argument("head", default="HEAD")
@registry_option
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="text: aligned columns as wide as the terminal (piped: $COLUMNS, else 100); "
    "markdown: a table for a pull-request comment.",
)
def diff_command(base: str, head: str, registry_path: Path | None, fmt: str) -> None:
    """List the knobs that HEAD (default: HEAD) adds, removes, flips or moves since BASE.

    Both revisions are read from git objects: nothing is checked out and the
    working tree is neither read nor touched, so commit the registry (and its
    changes) first. Each is scanned with its own registry's scope, and each knob
    is shown with its triage status in that registry; knobs registered for the
    first time (BASE had no registry) are one group. A knob whose latest triage
    record keeps the code it was measured on is listed when that code changed:
    its triage is then stale (unless the change records a new one).

    \b
      knobs diff origin/main
      knobs diff origin/main HEAD --format markdown >> "$GITHUB_STEP_SUMMARY"

    Exit status: 0; 1 when a knob becomes on by default (new, or flipped) and is
    not triaged; 2 bad usage, no such revision, or a registry that does not load.
    """
    context = click.get_current_context()
    try:
        registry = find_registry(registry_path)
        diff = knob_diff(base, head, registry=registry, cwd=Path.cwd())
    except RegistryError as error:
        fail_on_registry(error)
    except DiffError as error:
        usage_error("diff", str(error))
    for note in diff.notes:
        click.echo(f"knobs diff: note: {note}", err=True)
    if fmt == "markdown":
        click.echo(render_diff_markdown(diff), nl=False)
    else:
        click.echo(render_diff_text(diff, output_width(sys.stdout)), nl=False)
    context.exit(ExitCode.DRIFT if diff.blocking else ExitCode.OK)
