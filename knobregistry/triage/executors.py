"""Where runs execute: `local` (a process on this machine, the default) or `slurm` (a batch job).

Both are Runners: the engine starts, waits for and stops runs through the same members
(`typed`, `timeout`, `folder`, `run`, `stop_all`). This module also checks the options
that go with each.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

from knobregistry.triage.runner import Runner
from knobregistry.triage.slurm import SlurmRunner

EXECUTORS = ("local", "slurm")
# Options triage sets itself: each run's output, folder and environment are its to collect.
OWN_OPTIONS = (
    ("-o", "--output"),
    ("-e", "--error"),
    ("-D", "--chdir"),
    ("-a", "--array"),
    ("-W", "--wait"),
    ("", "--export"),
    ("", "--parsable"),
    ("", "--wrap"),
)


class SlurmError(ValueError):
    """--executor slurm cannot be used as asked."""


def check_slurm_args(args: Iterable[str]) -> None:
    """Refuse a --slurm-arg that would take from triage what it collects itself."""
    for arg in args:
        for short, long in OWN_OPTIONS:
            if arg == long or arg.startswith(f"{long}=") or (short and arg.startswith(short)):
                raise SlurmError(
                    f"--slurm-arg '{arg}': triage sets {long} itself (each run's output, "
                    "folder and environment are its to collect); leave it out."
                )


def check_commands() -> None:
    """Refuse --executor slurm where Slurm's commands are not on PATH."""
    missing = [
        name for name in ("sbatch", "squeue", "scancel", "scontrol") if not shutil.which(name)
    ]
    if missing:
        raise SlurmError(
            f"--executor slurm needs Slurm's commands, and {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not on PATH; run triage where jobs are "
            "submitted (a login node), or put Slurm's bin folder on PATH."
        )


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


def make_runner(
    executor: str,
    command: Sequence[str],
    origin: Path,
    root: Path,
    timeout: float | None,
    slurm_args: Sequence[str] = (),
) -> Runner:
    """The Runner of ``executor``; ``root`` holds the runs' folders."""
    if executor == "slurm":  # the nodes resolve no path relative to this process's folder
        root = root.absolute()
        return SlurmRunner(tuple(command), origin, root, timeout, slurm_args=tuple(slurm_args))
    return Runner(tuple(command), origin, root, timeout)
