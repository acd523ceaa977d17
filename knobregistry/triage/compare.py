"""Judge the runs of one setting: equal outputs, a first difference, or an error.

The modes (`stdout`, `regex:PATTERN`, `file:PATH`, `tensors:PATH`, `checksums:DIR`) are a
table, one module each in knobregistry.triage.modes. A PATH is read only inside the run's
working directory: `..` out of it is refused when the option is parsed, a symlink out of
it (which the command may have made) is an error for that run.

Outputs are compared as streams (see streams.py): digests first, then, only when
they differ, a second pass for the first differing line or byte; memory does not
grow with the output.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knobregistry.registry import Verdict
from knobregistry.triage.model import Run
from knobregistry.triage.modes import CompareError, Mode, Unusable, named, usages

MODES = usages()
STDERR_TAIL_LINES = 12
TAIL_BYTES = 16384


@dataclass(frozen=True, slots=True)
class CompareMode:
    """A parsed --compare value: the mode's name and its argument ("" for none)."""

    kind: str  # a name of the table of modes
    argument: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.argument}" if self.argument else self.kind

    @property
    def declared(self) -> Mode[Any]:
        """The mode's declaration (see knobregistry.triage.modes)."""
        mode = named(self.kind)
        assert mode is not None, self.kind
        return mode

    def environment(self, folder: Path, env: Mapping[str, str]) -> Mapping[str, str]:
        """``env`` for a run in ``folder``, with what the mode sets (checksums: the folder
        the run records into, in KNOBS_CHECKSUMS)."""
        set_up = self.declared.environment
        return env if set_up is None else set_up(folder, self.argument, env)


def parse_compare(text: str) -> CompareMode:
    """Parse a --compare value; raises CompareError with what to write instead."""
    kind, colon, argument = text.partition(":")
    mode = named(kind)
    if mode is not None and not mode.argument and text == kind:
        return CompareMode(kind)
    if mode is None or not mode.argument or not colon or not argument:
        raise CompareError(f"--compare '{text}': write one of {', '.join(MODES)}.")
    mode.check(text, argument)
    return CompareMode(kind, argument)


def judge(mode: CompareMode, runs: Sequence[Run], timeout: float | None) -> tuple[Verdict, str]:
    """The verdict on ``runs`` of one setting, and its detail ("" when reproducible).

    A run that failed or timed out makes the verdict `error`, whatever the outputs.
    """
    for run in runs:
        if run.timed_out or run.returncode != 0:
            return Verdict.ERROR, _failure(run, timeout)
    declared, argument = mode.declared, mode.argument
    try:
        first = declared.observe(argument, runs[0])
        for run in runs[1:]:
            difference = declared.difference(argument, first, declared.observe(argument, run))
            if difference is not None:
                return Verdict.BREAKS_BITWISE, f"run {run.index} differs from run 1 {difference}"
    except Unusable as exc:
        return Verdict.ERROR, str(exc)
    return Verdict.REPRODUCIBLE, ""


def _failure(run: Run, timeout: float | None) -> str:
    if run.timed_out:
        what = f"run {run.index} timed out after {timeout:g} s and was stopped"
    elif run.returncode is not None and run.returncode < 0:
        what = f"run {run.index} was killed by signal {-run.returncode}"
    else:
        what = f"run {run.index} exited with status {run.returncode}"
    tail = stderr_tail(run.stderr)
    if not tail:
        return f"{what}; its stderr is empty."
    return f"{what}; the end of its stderr:\n" + "\n".join(f"  {line}" for line in tail)


def stderr_tail(path: Path, lines: int = STDERR_TAIL_LINES) -> list[str]:
    """The last non-blank ``lines`` of a run's stderr (read from its last 16 KiB only)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(max(0, size - TAIL_BYTES))
            text = file.read(TAIL_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return []
    kept = [line.rstrip() for line in text.splitlines() if line.strip()]
    return kept[-lines:]
