"""The exit codes of every `knobs` command: the CLI's contract with CI."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """0 clean, 1 drift (findings), 2 bad usage or a bad registry."""

    OK = 0
    DRIFT = 1
    USAGE = 2
