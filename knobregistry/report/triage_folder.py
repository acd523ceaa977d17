"""What `knobs triage` says on standard error of its folder: the journal it starts or
resumes, what a resume stopped or left running, and how to continue an interrupted sweep."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from knobregistry._text.plural import counted
from knobregistry.triage.sweep_folder import Folder
from knobregistry.triage.sweep_header import shown_command


def _say(line: str) -> None:
    click.echo(f"knobs triage: {line}", err=True)


class FolderLines:
    """The events of `triage.sweep_folder.start`, one line each on standard error; the
    question of an unvouched command asked on a terminal."""

    def resuming(self, folder: Path, settings: int, runs: int, command: Sequence[str]) -> None:
        _say(
            f"resuming {folder}: {counted(settings, 'setting')} judged and "
            f"{counted(runs, 'run')} finished before."
        )
        _say(f"the sweep's command: {shown_command(command)}.")

    def confirm(self, doubt: str) -> bool | None:
        if not sys.stdin.isatty():
            return None
        return click.confirm(f"knobs triage: the journal's command {doubt}. Run it?", err=True)

    def running_unvouched(self, doubt: str) -> None:
        _say(f"note: the journal's command {doubt}; running it, as --yes asks.")

    def stopped(self, groups: Sequence[int]) -> None:
        _say(
            f"stopped {counted(len(groups), 'run')} the interrupted sweep "
            f"left running (process group {', '.join(map(str, groups))})."
        )

    def left_running(self, group: int) -> None:
        _say(
            f"note: process group {group} is led by a process the journal says "
            "a run of the sweep started, but its record is not sealed by your key, so it is "
            f"left running; if it is a run of yours, stop it with `kill -- -{group}`."
        )

    def journal_started(self, folder: Path) -> None:
        _say(
            f"journal in {folder}; continue an interrupted sweep with "
            f"`knobs triage --resume {folder}`."
        )

    def fallback(self, parent: Path, reason: str, folder: Path) -> None:
        _say(
            f"note: cannot make {parent} here ({reason}); the "
            f"journal goes in {folder} instead (name a folder with --dir DIR)."
        )


def finished(folder: Folder) -> None:
    """After a complete sweep: on resume, say how many runs this invocation made."""
    if folder.resumed:
        journal = folder.journal
        _say(
            f"resumed {folder.shown}: {counted(journal.ran, 'run')} of the command "
            f"now, {journal.reused} taken from the journal."
        )


def interrupted(folder: Folder) -> None:
    """What to say when the sweep is interrupted."""
    _say(f"the journal keeps what finished; continue with `knobs triage --resume {folder.shown}`.")
