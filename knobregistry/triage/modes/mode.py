"""What a compare mode declares: its name, its argument, its help and docs, and how it
parses, observes a run's output, tells two outputs apart and records a difference.

A mode is one module of this package that declares ``MODE = Mode(...)``; the table
(``knobregistry.triage.modes.MODES``) is every such declaration, in ``place`` order.
Its ``name``, ``argument`` and ``place`` are written as literals: the registry's schema
(knobregistry.registry.schema, a room below triage) reads them from the source.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from knobregistry._io.files import leads_inside
from knobregistry.triage.model import Run

Observed = TypeVar("Observed")


class CompareError(ValueError):
    """A --compare value that cannot be used."""


class Unusable(Exception):
    """An output that cannot be compared: no file, no matching line."""


def _no_check(text: str, argument: str) -> None:
    """An argument every text is fine for."""


def _no_records(detail: str) -> Mapping[str, Any]:
    return {}


@dataclass(frozen=True, slots=True, kw_only=True)
class Mode(Generic[Observed]):
    """One compare mode, declared in its module.

    ``observe`` reads a run's output (raising Unusable when it cannot be compared),
    ``difference`` says where a run's output differs from run 1's (None when equal); both
    are given the text after the colon (the pattern, the path).
    """

    name: str  # as written before the colon
    argument: str  # what follows the colon (PATTERN, PATH, DIR); "" when none
    place: int  # its order in the help, the docs and the error that lists the modes
    help: str  # what --compare's help says in parentheses after it; "" for nothing
    docs: tuple[str, ...]  # its row of docs/triage.md's table, after the mode's cell
    observe: Callable[[str, Run], Observed]
    difference: Callable[[str, Observed, Observed], str | None]
    check: Callable[[str, str], None] = _no_check  # (the whole text, its argument)
    environment: Callable[[Path, str, Mapping[str, str]], Mapping[str, str]] | None = None
    records: Callable[[str], Mapping[str, Any]] = field(default=_no_records)

    @property
    def usage(self) -> str:
        """``name:ARGUMENT`` (or the name alone), as help and errors show it."""
        return f"{self.name}:{self.argument}" if self.argument else self.name


def relative_path(text: str, argument: str) -> None:
    """Refuse a PATH that is absolute or leads out of the run's working directory."""
    if Path(argument).is_absolute():
        raise CompareError(
            f"--compare '{text}': give a path relative to the run's working directory; "
            "each run has its own, so concurrent runs do not overwrite each other's file."
        )
    if posixpath.normpath(argument).split("/")[0] == "..":
        raise CompareError(
            f"--compare '{text}': the path leads out of the run's working directory ('..'); "
            "give one inside it, where the command writes its output."
        )


def inside(argument: str, run: Run) -> Path:
    """The path ``mode`` names in ``run``'s folder; Unusable when a symlink leads out."""
    path = run.folder / argument
    if not leads_inside(path, run.folder):
        raise Unusable(
            f"run {run.index}: {argument} leads out of its working directory (through a "
            "symlink), so it was not read; the command must write it inside the folder it runs in."
        )
    return path


def written_file(argument: str, run: Run, path: Path) -> Path:
    """``path`` when the run wrote it as a file; Unusable otherwise."""
    if not path.is_file():
        raise Unusable(
            f"run {run.index} wrote no file {argument} in its working directory; the "
            "command must write it relative to the folder it runs in."
        )
    return path
