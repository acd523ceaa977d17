"""`--jobs`: how many at once, within what the machine can use.

`knobs scan` (and every command that scans) starts that many worker processes: more
than 4 per CPU this process may run on only compete for the same CPUs. `knobs triage`
runs that many settings' runs at once, each a slot with its own devices and port, here or
as Slurm jobs, whatever this machine's CPUs: at most 1,024. A count past the bound, or
not a whole number from 1 (a number of 5,000 digits included), is refused in one line
with exit 2, before a slot, a thread or a process is made.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from knobregistry._text.plural import counted
from knobregistry.commands.exit_codes import usage_error
from scanner.run.pool import JOBS_PER_CPU, default_jobs

_DIGITS = 20  # what a count may be written with; more is cut in the message


def scan_most() -> int:
    """The most worker processes a scan starts: JOBS_PER_CPU per CPU."""
    return JOBS_PER_CPU * default_jobs()


def _scan_bound() -> tuple[int, str]:
    cpus = default_jobs()
    return (
        scan_most(),
        f"more worker processes than this machine can use: give at most {scan_most()} "
        f"({JOBS_PER_CPU} per CPU, {counted(cpus, 'CPU')})",
    )


def _triage_bound() -> tuple[int, str]:
    from knobregistry.triage.slots import MOST_JOBS  # triage's modules only for triage

    return MOST_JOBS, f"more runs at once than triage makes: give at most {MOST_JOBS}"


def jobs_callback(
    command: str, what: str, bound: Callable[[], tuple[int, str]]
) -> Callable[[click.Context, click.Parameter, str | int | None], int | None]:
    """A click callback that turns ``--jobs``'s text into a count within ``bound``."""

    def check(_: click.Context, __: click.Parameter, value: str | int | None) -> int | None:
        if value is None:
            return None
        most, too_many = bound()
        text = str(value).strip()
        shown = text if len(text) <= _DIGITS else text[:_DIGITS] + "..."
        if not (text.isascii() and text.isdigit()) or int(text[:_DIGITS] or "0") < 1:
            usage_error(
                command,
                f"--jobs {shown} is not a number of {what}: give a whole number from 1 to {most}.",
            )
        if len(text) > _DIGITS or int(text) > most:
            usage_error(command, f"--jobs {shown} is {too_many}.")
        return int(text)

    return check


SCAN_JOBS = jobs_callback("scan", "worker processes", _scan_bound)
TRIAGE_JOBS = jobs_callback("triage", "runs at once", _triage_bound)
