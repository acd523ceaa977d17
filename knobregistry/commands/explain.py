"""`knobs explain KNOB`: the registry entry and every site of one knob, with code context."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from knobregistry._text.paths import shown
from knobregistry._text.width import output_width
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.commands.registry_args import fail_on_registry, open_registry, registry_option
from knobregistry.explain.explanation import explain, suggestions
from knobregistry.registry import RegistryError
from knobregistry.report.explain import print_explain_rich, render_explain_text


@click.command("explain")
@click.argument("knob")
@registry_option
def explain_command(knob: str, registry_path: Path | None) -> None:
    """Show what is known about KNOB: its registry entry and every place that reads it.

    The entry's triage, evidence, cost and owner, the profiles that set the knob,
    and each site in the registry's scan scope with a few lines of code and its
    gate verdict: the default, whether it is on by default, and the values that
    turn it off.
    """
    try:
        registry = open_registry(registry_path)
        explanation = explain(registry, knob)
    except RegistryError as error:
        fail_on_registry(error)
    if explanation is None:
        close = suggestions(registry, knob)
        hint = f" Did you mean {close[0]}?" if close else ""
        where = shown(registry.path, Path.cwd())
        click.echo(
            f"Error: {where} does not register {knob}, and no code in its scan scope reads it."
            + hint,
            err=True,
        )
        click.get_current_context().exit(ExitCode.USAGE)
    elif sys.stdout.isatty():
        from rich.console import Console  # rich only on a terminal

        print_explain_rich(explanation, Console(highlight=False, width=output_width(sys.stdout)))
    else:
        click.echo(render_explain_text(explanation, output_width(sys.stdout)), nl=False)
