"""Where runs execute: `local` (a process on this machine, the default) or `slurm` (a batch job).

Both are Runners: the engine starts, waits for and stops runs through the same four
members (`typed`, `timeout`, `folder`, `run`, `stop_all`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from knobregistry.triage.runner import Runner
from knobregistry.triage.slurm import SlurmError, SlurmRunner, check_commands, check_slurm_args

EXECUTORS = ("local", "slurm")


def check_executor(executor: str, slurm_args: Sequence[str], devices_per_run: int | None) -> None:
    """Refuse options that do not go with ``executor``; raises SlurmError."""
    if executor != "slurm":
        if slurm_args:
            raise SlurmError("--slurm-arg goes with --executor slurm; add it, or drop --slurm-arg.")
        return
    if devices_per_run is not None:
        raise SlurmError(
            "--devices-per-run splits this machine's devices between local runs; with "
            "--executor slurm, Slurm gives each job its devices: ask for them with "
            "--slurm-arg=--gpus-per-node=N."
        )
    check_slurm_args(slurm_args)
    check_commands()


def runs_folder(executor: str, origin: Path) -> tempfile.TemporaryDirectory[str]:
    """The temporary folder that holds the runs' folders: in the system's temporary folder
    for local runs; in ``origin`` for Slurm jobs, whose nodes must see it (a shared
    filesystem)."""
    if executor == "slurm":
        return tempfile.TemporaryDirectory(prefix=".knobs-triage-", dir=origin)
    return tempfile.TemporaryDirectory(prefix="knobs-triage-")


def make_runner(
    executor: str,
    command: Sequence[str],
    origin: Path,
    root: Path,
    timeout: float | None,
    slurm_args: Sequence[str] = (),
) -> Runner:
    """The Runner of ``executor``."""
    if executor == "slurm":
        return SlurmRunner(tuple(command), origin, root, timeout, slurm_args=tuple(slurm_args))
    return Runner(tuple(command), origin, root, timeout)
