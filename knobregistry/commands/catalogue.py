"""`knobs catalogue [LIBRARY]`: the shipped determinism settings of the stack, with sources;
with --installed, the variables the installed libraries name that the catalogue has not
reviewed."""

from __future__ import annotations

import click

from knobregistry._text.suggest import closest
from knobregistry.catalogue import entries, libraries, library_records
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.report.catalogue import render_entries


@click.command("catalogue")
@click.argument("library", required=False)
@click.option(
    "--installed",
    is_flag=True,
    help="Read the shared objects the installed libraries ship and list the variable names "
    "with each library's prefix that the catalogue has not reviewed (exit 1 when there are).",
)
def catalogue_command(library: str | None, installed: bool) -> None:
    """Print the stack's determinism settings that knobs ships, with their sources.

    Each setting names its library, the platform it applies on (cuda, rocm, cpu
    or any), how it is read (an environment variable, or a call or attribute at
    start-up), the value that makes a run deterministic (or that it must stay
    unset), what that costs, the versions it applies to and where it was checked;
    each library then lists the variables that were reviewed and are left out of
    recipes, and why. LIBRARY (any case: nccl, rocBLAS) prints one library's.

    With --installed, knobs reads the string tables of the libraries' shared
    objects installed where it runs (found through the installed distributions'
    file lists) and prints the names with the library's prefix (NCCL_, TORCH_,
    NVTE_, ...) that the catalogue has not reviewed: after an upgrade, the native
    knobs a new release added. It exits 1 when there are some, 0 when none.
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
    if installed:
        from knobregistry.catalogue.installed import drift
        from knobregistry.report.catalogue import render_drift

        found = drift(name)
        click.echo(render_drift(found), nl=False)
        unreviewed = any(item.unreviewed for item in found)
        click.get_current_context().exit(ExitCode.DRIFT if unreviewed else ExitCode.OK)
    shown = tuple(e for e in entries() if name is None or e.library == name)
    reviewed = [r for record in library_records() for r in record.reviewed]
    click.echo(render_entries(shown, reviewed), nl=False)
