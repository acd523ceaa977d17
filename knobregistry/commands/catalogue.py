"""`knobs catalogue [LIBRARY]`: the shipped determinism settings of the stack, with sources."""

from __future__ import annotations

import click

from knobregistry.catalogue import entries, libraries, library_records
from knobregistry.catalogue.render import render_entries
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.suggest import closest


@click.command("catalogue")
@click.argument("library", required=False)
def catalogue_command(library: str | None) -> None:
    """Print the stack's determinism settings that knobs ships, with their sources.

    Each setting names its library, the platform it applies on (cuda, rocm, cpu
    or any), how it is read (an environment variable, or a call or attribute at
    start-up), the value that makes a run deterministic (or that it must stay
    unset), what that costs, the versions it applies to and where it was checked;
    each library then lists the variables that were reviewed and are left out of
    recipes, and why. LIBRARY (any case: nccl, rocBLAS) prints one library's.
    """
    name = None
    if library is not None:
        known = {item.lower(): item for item in libraries()}
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
    shown = tuple(e for e in entries() if name is None or e.library == name)
    reviewed = [r for record in library_records() for r in record.reviewed]
    click.echo(render_entries(shown, reviewed), nl=False)
