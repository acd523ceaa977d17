"""The `knobs` command line: the only place that turns results into exit codes."""

from __future__ import annotations

import click

from knobregistry import __version__
from knobregistry.commands.check import check_command
from knobregistry.commands.explain import explain_command
from knobregistry.commands.export import export_command
from knobregistry.commands.init import init_command
from knobregistry.commands.scan import scan_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="knobs")
def main() -> None:
    """Find, register and pin the environment knobs that gate fused kernels."""


main.add_command(scan_command)
main.add_command(export_command)
main.add_command(check_command)
main.add_command(init_command)
main.add_command(explain_command)
