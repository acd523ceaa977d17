"""`knobs catalogue [LIBRARY]`: the shipped determinism settings of the stack, with sources."""

from __future__ import annotations

import click

from knobregistry.catalogue import entries, libraries
from knobregistry.catalogue.render import render_entries
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.suggest import closest


@click.command("catalogue")
@click.argument("library", required=False)
def catalogue_command(library: str | None) -> None:
    """Print the stack's determinism settings that knobs ships, with their sources.

    Each setting names its library, the platform it applies on (cuda, rocm, cpu
    or any), how it is read (an environment variable, or a call or attribute at
    start-up), the value that makes a run deterministic, what that costs, the
    versions it applies to and where it was checked. LIBRARY (any case:
    nccl, rocBLAS) prints one library's settings.
    """
    found = entries()
    if library is not None:
        known = {name.lower(): name for name in libraries()}
        name = known.get(library.lower())
        if name is None:
            close = closest(library, list(libraries()))
            hint = f" Did you mean {close}?" if close else ""
            click.echo(
                f"Error: no library {library!r} in the catalogue; the libraries are "
                f"{', '.join(libraries())}.{hint}",
                err=True,
            )
            click.get_current_context().exit(ExitCode.USAGE)
        found = tuple(e for e in found if e.library == name)
    click.echo(render_entries(found), nl=False)
