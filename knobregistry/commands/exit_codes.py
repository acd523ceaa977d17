"""The exit codes of every `knobs` command: the CLI's contract with CI."""

from __future__ import annotations

from enum import IntEnum
from typing import NoReturn

import click


class ExitCode(IntEnum):
    """0 clean, 1 drift (findings), 2 bad usage or a bad registry."""

    OK = 0
    DRIFT = 1
    USAGE = 2


def usage_error(command: str, message: str) -> NoReturn:
    """Say what is wrong with how ``knobs COMMAND`` was called, and exit 2."""
    click.echo(f"knobs {command}: error: {message}", err=True)
    click.get_current_context().exit(ExitCode.USAGE)
