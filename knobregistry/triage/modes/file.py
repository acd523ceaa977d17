"""`--compare file:PATH`: the bytes of a file the command writes, relative to its working
directory."""

from __future__ import annotations

from knobregistry.triage import streams
from knobregistry.triage.model import Run
from knobregistry.triage.modes.mode import Mode, inside, relative_path, written_file
from knobregistry.triage.modes.output import Output, difference


def _observe(argument: str, run: Run) -> Output:
    path = written_file(argument, run, inside(argument, run))
    return Output(run, path, streams.summarize(path))


def _difference(argument: str, first: Output, other: Output) -> str | None:
    return difference(first, other, f" of {argument}")


MODE = Mode(
    name="file",
    argument="PATH",
    place=30,
    help="",
    docs=(
        "the bytes of a file the command writes",
        "the first differing line of a text file; the first differing byte offset and both "
        "sizes otherwise",
    ),
    observe=_observe,
    difference=_difference,
    check=relative_path,
)
