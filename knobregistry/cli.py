"""The `knobs` command line: the only place that turns results into exit codes."""

from __future__ import annotations

import click

from knobregistry import __version__
from knobregistry.commands.scan import scan_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="knobs")
def main() -> None:
    """Find, register and pin the environment knobs that gate fused kernels."""


main.add_command(scan_command)
