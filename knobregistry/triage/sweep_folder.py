"""The triage folder of a sweep: a new journal (`--dir`, or a new folder under
.knobs/triage), or the one `--resume` continues, checked against the request and its seal,
with what its interrupted runs left running stopped.

`start` prints nothing and exits nothing: it raises Refused where the sweep cannot start,
and tells ``events`` (the CLI's view, report/triage_folder.py) what it did.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from knobregistry.triage import leftovers, seal
from knobregistry.triage.journal import Journal, JournalError, Trust, new_folder
from knobregistry.triage.request import Refused
from knobregistry.triage.sweep_header import Header, differences

DEFAULT_PARENT = Path(".knobs") / "triage"
_GITIGNORE = "# knobs' working files: triage journals and runs (knobs triage --dir).\n*\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class FolderRequest:
    """Where a sweep is journaled, as asked for."""

    folder: Path | None = None  # --dir: a new journal there (None: a new folder)
    resumed: Journal | None = None  # --resume: the journal to continue
    yes: bool = False  # --yes: run a resumed journal's command its seal cannot vouch for
    typed: bool = False  # the command was typed again on the command line


@dataclass(frozen=True, slots=True)
class Folder:
    """The journal a sweep runs with, and how it is shown."""

    journal: Journal
    shown: str
    resumed: bool


class FolderEvents(Protocol):
    """What `start` tells the one who called it, as it happens."""

    def resuming(self, folder: Path, settings: int, runs: int, command: Sequence[str]) -> None:
        """A journal is resumed: ``settings`` judged and ``runs`` finished before."""

    def confirm(self, doubt: str) -> bool | None:
        """Whether to run a journal's command its seal cannot vouch for (``doubt`` says
        why); None where nobody can be asked (not a terminal)."""

    def running_unvouched(self, doubt: str) -> None:
        """The journal's command is run anyway, as --yes asks."""

    def stopped(self, groups: Sequence[int]) -> None:
        """The process groups an interrupted sweep left running, stopped."""

    def left_running(self, group: int) -> None:
        """A process group left running: its record is not sealed by the user's key."""

    def journal_started(self, folder: Path) -> None:
        """A new journal, in ``folder``."""

    def fallback(self, parent: Path, reason: str, folder: Path) -> None:
        """``parent`` could not be made (``reason``); the journal goes in ``folder``."""


def start(header: Header, request: FolderRequest, events: FolderEvents) -> Folder:
    """Check a resumed journal against ``header`` and its seal, then stop what its runs left
    running; or start a new journal. Raises Refused where the sweep cannot start."""
    resumed = request.resumed
    if resumed is not None:
        resume = resumed.folder
        found = differences(resumed.header, header)
        if found:
            raise Refused(
                f"cannot resume {resume}: it journals another sweep:\n"
                + "".join(f"  {line}\n" for line in found)
                + f"Resume it as journaled (`knobs triage --resume {resume}`, without COMMAND or "
                "the options that differ), restore what changed, or start a new sweep without "
                "--resume."
            )
        settings, runs = resumed.journaled
        events.resuming(resume, settings, runs, header.command)
        _vouch(resumed, request, events)
        try:
            resumed.prepare()
        except JournalError as exc:
            raise Refused(f"cannot resume {resume}: {exc}") from exc
        _stop_leftovers(resumed, events)
        return Folder(resumed, str(resume), True)
    if request.yes:
        raise Refused("--yes goes with --resume (a new sweep runs what you type); drop it.")
    folder = request.folder if request.folder is not None else _default_folder(events)
    try:
        journal = Journal.create(folder, header)
    except JournalError as exc:
        raise Refused(str(exc)) from exc
    except OSError as exc:
        raise Refused(f"cannot write the journal in {folder}: {exc.strerror}.") from exc
    events.journal_started(folder)
    return Folder(journal, str(folder), False)


_DOUBT = {
    Trust.CHANGED: "was changed since the sweep started (its seal does not match)",
    Trust.UNVERIFIABLE: "cannot be verified here: the key that sealed it is not in {key} (a "
    "sweep started on another machine or by another user, or a cleared cache)",
}


def _vouch(journal: Journal, request: FolderRequest, events: FolderEvents) -> None:
    """Go on only with a command the user vouches for: typed again, sealed by the user's
    key, confirmed on a terminal, or --yes; else raise Refused."""
    trust = journal.trust()
    if trust is Trust.SEALED or request.typed:
        return
    doubt = _DOUBT[trust].format(key=seal.key_path())
    if request.yes:
        events.running_unvouched(doubt)
        return
    resume = journal.folder
    confirmed = events.confirm(doubt)
    if confirmed:
        return
    if confirmed is not None:
        raise Refused(f"cannot resume {resume}: not confirmed; nothing was run.")
    raise Refused(
        f"cannot resume {resume}: the journal's command {doubt}; check it, then resume with "
        f"`knobs triage --resume {resume} --yes`, or give the command after `--`."
    )


def _stop_leftovers(journal: Journal, events: FolderEvents) -> None:
    """Stop the runs the interrupted sweep left running (leftovers.py)."""
    found = leftovers.stop(journal.leftovers(), journal.sealed)
    if found.stopped:
        events.stopped(found.stopped)
    for group in found.unverified:
        events.left_running(group)


def clean(folder: Folder) -> None:
    """After a complete sweep: its runs' folder goes (the journal stays), nothing else."""
    folder.journal.remove_runs()


def _default_folder(events: FolderEvents) -> Path:
    """A new folder under .knobs/triage, or, where the current folder cannot be written
    (a read-only checkout), one in the system's temporary folder."""
    try:
        _ignored(DEFAULT_PARENT.parent)
        return new_folder(DEFAULT_PARENT)
    except OSError as exc:
        fallback = Path(tempfile.mkdtemp(prefix="knobs-triage-"))
        events.fallback(DEFAULT_PARENT, str(exc.strerror), fallback)
        return fallback


def _ignored(folder: Path) -> None:
    """Make ``folder`` (.knobs) with a .gitignore that keeps it out of git."""
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_GITIGNORE, encoding="utf-8")
