"""`knobs triage --dir DIR` and `--resume DIR`: the triage folder and journal of a sweep."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from knobregistry._text.plural import counted
from knobregistry.commands.exit_codes import usage_error
from knobregistry.triage import leftovers, seal
from knobregistry.triage.journal import Journal, JournalError, Trust, new_folder
from knobregistry.triage.sweep_header import Header, differences, shown_command

DEFAULT_PARENT = Path(".knobs") / "triage"
_GITIGNORE = "# knobs' working files: triage journals and runs (knobs triage --dir).\n*\n"

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


@dataclass(frozen=True, slots=True)
class Folder:
    """The journal a sweep runs with, and how it is shown."""

    journal: Journal
    shown: str
    resumed: bool


def start(header: Header, folder: Path | None, resumed: Journal | None, yes: bool) -> Folder:
    """Check a resumed journal against ``header`` and its seal, then stop what its runs left
    running; or start a new journal. Say where it is."""
    if resumed is not None:
        resume = resumed.folder
        found = differences(resumed.header, header)
        if found:
            usage_error(
                "triage",
                f"cannot resume {resume}: it journals another sweep:\n"
                + "".join(f"  {line}\n" for line in found)
                + f"Resume it as journaled (`knobs triage --resume {resume}`, without COMMAND or "
                "the options that differ), restore what changed, or start a new sweep without "
                "--resume.",
            )
        settings, runs = resumed.journaled
        click.echo(
            f"knobs triage: resuming {resume}: {counted(settings, 'setting')} judged and "
            f"{counted(runs, 'run')} finished before.",
            err=True,
        )
        click.echo(f"knobs triage: the sweep's command: {shown_command(header.command)}.", err=True)
        _vouch(resumed, resume, yes)
        try:
            resumed.prepare()
        except JournalError as exc:
            usage_error("triage", f"cannot resume {resume}: {exc}")
        _stop_leftovers(resumed)
        return Folder(resumed, str(resume), True)
    if yes:
        usage_error("triage", "--yes goes with --resume (a new sweep runs what you type); drop it.")
    if folder is None:
        folder = _default_folder()
    try:
        journal = Journal.create(folder, header)
    except JournalError as exc:
        usage_error("triage", str(exc))
    except OSError as exc:
        usage_error("triage", f"cannot write the journal in {folder}: {exc.strerror}.")
    click.echo(
        f"knobs triage: journal in {folder}; continue an interrupted sweep with "
        f"`knobs triage --resume {folder}`.",
        err=True,
    )
    return Folder(journal, str(folder), False)


_DOUBT = {
    Trust.CHANGED: "was changed since the sweep started (its seal does not match)",
    Trust.UNVERIFIABLE: "cannot be verified here: the key that sealed it is not in {key} (a "
    "sweep started on another machine or by another user, or a cleared cache)",
}


def _vouch(journal: Journal, resume: Path, yes: bool) -> None:
    """Go on only with a command the user vouches for: typed again, sealed by the user's
    key, confirmed on a terminal, or --yes; else exit 2."""
    typed = click.get_current_context().get_parameter_source("command")
    trust = journal.trust()
    if trust is Trust.SEALED or typed is ParameterSource.COMMANDLINE:
        return
    doubt = _DOUBT[trust].format(key=seal.key_path())
    if yes:
        click.echo(
            f"knobs triage: note: the journal's command {doubt}; running it, as --yes asks.",
            err=True,
        )
        return
    if sys.stdin.isatty():
        if click.confirm(f"knobs triage: the journal's command {doubt}. Run it?", err=True):
            return
        usage_error("triage", f"cannot resume {resume}: not confirmed; nothing was run.")
    usage_error(
        "triage",
        f"cannot resume {resume}: the journal's command {doubt}; check it, then resume with "
        f"`knobs triage --resume {resume} --yes`, or give the command after `--`.",
    )


def _stop_leftovers(journal: Journal) -> None:
    """Stop the runs the interrupted sweep left running (leftovers.py), saying so."""
    found = leftovers.stop(journal.leftovers(), journal.sealed)
    if found.stopped:
        click.echo(
            f"knobs triage: stopped {counted(len(found.stopped), 'run')} the interrupted sweep "
            f"left running (process group {', '.join(map(str, found.stopped))}).",
            err=True,
        )
    for group in found.unverified:
        click.echo(
            f"knobs triage: note: process group {group} is led by a process the journal says "
            "a run of the sweep started, but its record is not sealed by your key, so it is "
            f"left running; if it is a run of yours, stop it with `kill -- -{group}`.",
            err=True,
        )


def finish(folder: Folder) -> None:
    """After a complete sweep: on resume, say how many runs this invocation made."""
    if folder.resumed:
        journal = folder.journal
        click.echo(
            f"knobs triage: resumed {folder.shown}: {counted(journal.ran, 'run')} of the command "
            f"now, {journal.reused} taken from the journal.",
            err=True,
        )


def clean(folder: Folder) -> None:
    """After a complete sweep: its runs' folder goes (the journal stays), nothing else."""
    folder.journal.remove_runs()


def interrupted(folder: Folder) -> None:
    """What to say when the sweep is interrupted."""
    click.echo(
        f"knobs triage: the journal keeps what finished; continue with "
        f"`knobs triage --resume {folder.shown}`.",
        err=True,
    )


def _default_folder() -> Path:
    """A new folder under .knobs/triage, or, where the current folder cannot be written
    (a read-only checkout), one in the system's temporary folder, saying so."""
    try:
        _ignored(DEFAULT_PARENT.parent)
        return new_folder(DEFAULT_PARENT)
    except OSError as exc:
        fallback = Path(tempfile.mkdtemp(prefix="knobs-triage-"))
        click.echo(
            f"knobs triage: note: cannot make {DEFAULT_PARENT} here ({exc.strerror}); the "
            f"journal goes in {fallback} instead (name a folder with --dir DIR).",
            err=True,
        )
        return fallback


def _ignored(folder: Path) -> None:
    """Make ``folder`` (.knobs) with a .gitignore that keeps it out of git."""
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_GITIGNORE, encoding="utf-8")
