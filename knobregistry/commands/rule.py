"""`knobs rule [CODE]`: what one check code means, with an example and the fix."""

from __future__ import annotations

import sys

import click

from knobregistry._text.suggest import closest, closest_code
from knobregistry._text.width import output_width
from knobregistry.check.codes import RULES, find_rule
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.report.rule import render_rule, render_rule_list


@click.command("rule")
@click.argument("code", required=False)
def rule_command(code: str | None) -> None:
    """Explain a code of `knobs check` (KNB001, or its name, UnregisteredKnob).

    Prints what the code means, an example of what it reports, and the fix;
    without CODE, lists every code with its name, severity and summary. The
    same text is in the user guide, beside the check it belongs to.
    """
    if code is None:
        click.echo(render_rule_list(RULES, output_width(sys.stdout)), nl=False)
        return
    found = find_rule(code)
    if found is None:
        close = closest_code(code, [r.code for r in RULES]) or closest(
            code, [r.name for r in RULES]
        )
        hint = f" Did you mean {close}?" if close else ""
        click.echo(
            f"Error: {code} is no code of knobs check; `knobs rule` lists them.{hint}", err=True
        )
        click.get_current_context().exit(ExitCode.USAGE)
    click.echo(render_rule(found, output_width(sys.stdout)), nl=False)
