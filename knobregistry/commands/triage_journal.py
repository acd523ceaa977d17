"""`knobs triage --dir DIR`, `--resume DIR` and `--yes`: the options of a sweep's triage folder
(the folder itself: triage/sweep_folder.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from knobregistry.commands.exit_codes import usage_error
from knobregistry.triage.journal import Journal, JournalError

F = TypeVar("F", bound=Callable[..., Any])


def folder_options(function: F) -> F:
    """The --dir, --resume and --yes options."""
    function = click.option(
        "--yes",
        "-y",
        is_flag=True,
        help="With --resume: run the journal's command even where its seal cannot vouch "
        "for it (the journal was edited, or the sweep was started on another machine).",
    )(function)
    function = click.option(
        "--resume",
        "resume",
        type=click.Path(path_type=Path, file_okay=False),
        metavar="DIR",
        is_eager=True,  # read first: its journal gives the other parameters' defaults
        callback=_resume,
        help="Continue the interrupted sweep journaled in DIR: finished runs are not run "
        "again. COMMAND and the options that define the sweep may be left out (the journal's "
        "are used); given, they must match it.",
    )(function)
    function = click.option(
        "--dir",
        "folder",
        type=click.Path(path_type=Path, file_okay=False),
        metavar="DIR",
        help="The triage folder: the sweep's journal, and its runs' folders until judged "
        "(default: a new folder under .knobs/triage/).",
    )(function)
    return function


def _resume(context: click.Context, _: click.Parameter, folder: Path | None) -> Journal | None:
    """The journal --resume names; its sweep's parameters become the defaults of the
    command line's (click's default_map), so what is typed still wins and a resumed sweep
    is made as a new one is."""
    if folder is None:
        return None
    journal = open_journal(folder)
    context.default_map = {**(context.default_map or {}), **journal.header.values()}
    return journal


def open_journal(resume: Path) -> Journal:
    """The journal to resume; exits 2 when there is none to resume."""
    try:
        return Journal.open(resume)
    except JournalError as exc:
        usage_error("triage", f"cannot resume: {exc}")
