"""`--compare stdout`: the whole standard output, byte for byte."""

from __future__ import annotations

from dataclasses import replace

from knobregistry.triage import streams
from knobregistry.triage.model import Run
from knobregistry.triage.modes.mode import Mode
from knobregistry.triage.modes.output import Output, difference


def _observe(argument: str, run: Run) -> Output:
    summary = streams.summarize(run.stdout)
    return Output(run, run.stdout, replace(summary, utf8=True))  # shown with U+FFFD


def _difference(argument: str, first: Output, other: Output) -> str | None:
    return difference(first, other, "")


MODE = Mode(
    name="stdout",
    argument="",
    place=10,
    help="",
    docs=(
        "the whole standard output, byte for byte",
        'the first differing line (or "line endings or the final newline")',
    ),
    observe=_observe,
    difference=_difference,
)
