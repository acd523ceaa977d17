"""The journal of a triage, so that a sweep whose driver dies can be resumed.

A triage folder (`--dir DIR`) holds `journal.jsonl` and, while their setting is not
judged yet, the runs' own folders, in a folder of triage's own (owned.py): its name,
`knobs-runs-` and 16 random hex digits, is in the journal's header before it is made.
The journal's first line is its header: what the sweep is (command, compare mode,
knobs, runs, the registry's digest, ...), the runs' folder, and the seal of the
command (seal.py). Then one JSON line per run as it starts (its process, so that a
resume can stop what a SIGKILL of triage left running: leftovers.py), per finished
run (its setting, index, exit status, wall time) and per judged setting (its verdict,
detail and --cost samples), each appended as it happens with one `write` to a file
opened O_APPEND, then fsync'd. A line torn by SIGKILL (the last one, without its
newline or not JSON) is dropped when the journal is opened again.

A journal is read back as untrusted input: a regular file of at most MAX_BYTES, every
line checked (journal_format.py) before anything runs, or the whole is refused.

A setting's verdict needs all its runs' outputs, so a run's folder (its outputs,
stdout and stderr) is kept until its setting is judged, then goes. On resume, a
journaled verdict is taken as is; a journaled run whose folder is still there is taken
as is; any other run is run again (what an interrupted run left behind is removed
first). Settings are numbered in the order the sweep makes them, which depends only on
earlier verdicts, so a resumed sweep makes the same settings as an uninterrupted one.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from knobregistry._io import procfs
from knobregistry._io.files import FileError, read_bytes
from knobregistry._io.jsontext import loads
from knobregistry.registry import Sweep, Verdict
from knobregistry.triage import owned, seal, sweep_lock
from knobregistry.triage.journal_format import header_problem, line_problem
from knobregistry.triage.leftovers import Started
from knobregistry.triage.model import Outcome, Run, Setting
from knobregistry.triage.runner import streams
from knobregistry.triage.sweep_header import FORMAT
from knobregistry.triage.sweep_header import Header as Header  # where callers import it from

JOURNAL = "journal.jsonl"
RUNS_PREFIX = "knobs-runs-"
MAX_BYTES = 64 * 1024 * 1024  # a sweep of thousands of runs journals well under 1 MiB
DAMAGED = "the journal is damaged or was edited: start a new sweep."


class JournalError(Exception):
    """A triage folder that cannot be used: no journal, a damaged one, another sweep's."""


class Trust(Enum):
    """What the seal of a journal's command says."""

    SEALED = "sealed"  # the command and origin are those the sweep was started with
    UNVERIFIABLE = "unverifiable"  # no key here of the sweep's (another machine, a new cache)
    CHANGED = "changed"  # edited since the sweep started


@dataclass(frozen=True, slots=True, kw_only=True)
class _RunEntry:
    sweep: str
    knobs: tuple[str, ...]
    returncode: int | None
    timed_out: bool
    wall_s: float


class Journal:
    """A sweep's journal: what is done already, and the appends of what gets done."""

    def __init__(
        self, folder: Path, header: Header, runs_name: str, key: bytes | None = None
    ) -> None:
        self.folder = folder
        self.header = header
        self.path = folder / JOURNAL
        self.runs_name = runs_name
        self._key = key  # the user's (seal.py); None where there is none
        self._seal: Mapping[str, str] | None = None
        self._runs: dict[tuple[int, int], _RunEntry] = {}
        self._outcomes: dict[int, tuple[int, Outcome]] = {}  # number -> (line, outcome)
        self._started: dict[tuple[int, int], Started] = {}
        self._lock = threading.Lock()
        self.reused = 0  # runs taken from the journal, in this invocation
        self.ran = 0  # runs made in this invocation
        self._held: int | None = None  # the descriptor of the sweep's lock (sweep_lock.py)

    @property
    def runs_folder(self) -> Path:
        """Where the runs' own folders are: a folder triage made, named in the header."""
        return self.folder / self.runs_name

    @property
    def journaled(self) -> tuple[int, int]:
        """How many settings were judged, and how many runs finished, before this invocation."""
        return len(self._outcomes), len(self._runs)

    @classmethod
    def create(cls, folder: Path, header: Header) -> Journal:
        """Start the journal of a new sweep in ``folder`` (made here when missing): the
        header, naming the runs' folder, is written before that folder is made."""
        folder.mkdir(parents=True, exist_ok=True)
        key = seal.user_key(create=True)
        journal = cls(folder, header, RUNS_PREFIX + secrets.token_hex(8), key)
        try:
            descriptor = os.open(
                journal.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644
            )
        except FileExistsError:
            raise JournalError(
                f"{folder} holds the journal of a sweep already; continue it with "
                f"`knobs triage --resume {folder}`, or name a new folder."
            ) from None
        os.close(descriptor)
        journal._hold(str(folder))  # before a line is written: the sweep owns it from here
        if key is not None:
            journal._seal = {"key": seal.key_id(key), "mac": journal._command_mac(key)}
        journal._append(
            {**header.to_json(), "runs_folder": journal.runs_name, "seal": journal._seal}
        )
        journal.runs_folder.mkdir()  # fails on anything there: the folder is triage's own
        return journal

    @classmethod
    def open(cls, folder: Path) -> Journal:
        """The journal in ``folder``, every line checked; a torn last line is dropped.
        Its lock is taken first (sweep_lock.py): the journal of a sweep still running is
        refused before anything is read, truncated or stopped."""
        path = folder / JOURNAL
        try:
            held = sweep_lock.hold(path, str(folder))
        except sweep_lock.SweepRunning as exc:
            raise JournalError(str(exc)) from None
        except OSError as exc:
            raise JournalError(f"cannot lock {path}: {exc.strerror or exc}.") from None
        try:
            data = read_bytes(path, MAX_BYTES)
        except FileError as exc:
            if exc.errno == errno.ENOENT:
                raise JournalError(
                    f"{folder} holds no triage journal ({JOURNAL}); start a sweep there with "
                    f"`knobs triage --dir {folder} -- COMMAND`."
                ) from None
            raise JournalError(exc.message("read", str(path))) from exc
        lines = data.split(b"\n")
        complete = lines[:-1]  # what follows the last newline was torn (or is empty)
        records: list[Any] = []
        for number, line in enumerate(complete, 1):
            try:
                records.append(loads(line))
            except ValueError:
                if number == len(complete):
                    break  # torn in a way that kept its newline: treat as the torn last line
                raise JournalError(f"{path}:{number}: not a JSON line; {DAMAGED}") from None
        first = records[0] if records else None
        if not isinstance(first, dict) or first.get("journal") != "knobs-triage":
            raise JournalError(f"{path} is not a knobs triage journal.")
        if first.get("format") != FORMAT and type(first.get("format")) is int:
            raise JournalError(
                f"{path} is a journal of format {first['format']}; this knobs reads format "
                f"{FORMAT}: finish it with the knobs that started it."
            )
        problem = header_problem(first)
        if problem is not None:
            raise JournalError(f"{path}:1: {problem}; {DAMAGED}")
        journal = cls(folder, Header.from_json(first), first["runs_folder"], seal.user_key())
        journal._held = held
        journal._seal = first["seal"]
        for number, record in enumerate(records[1:], 2):
            problem = line_problem(record, first)
            if problem is not None:
                raise JournalError(f"{path}:{number}: {problem}; {DAMAGED}")
            journal._load(number, record)
        kept = sum(len(line) + 1 for line in complete[: len(records)])
        if kept != len(data):
            os.truncate(path, kept)  # so that the next append starts a line of its own
        return journal

    def _load(self, line: int, record: Mapping[str, Any]) -> None:
        if "run" in record:
            r = record["run"]
            self._runs[(r["number"], r["index"])] = _RunEntry(
                sweep=r["sweep"],
                knobs=tuple(r["knobs"]),
                returncode=r["returncode"],
                timed_out=r["timed_out"],
                wall_s=float(r["wall_s"]),
            )
        elif "outcome" in record:
            o = record["outcome"]
            setting = Setting(Sweep(o["sweep"]), tuple(o["knobs"]))
            samples = tuple(None if s is None else float(s) for s in o["samples"])
            outcome = Outcome(
                setting=setting,
                verdict=Verdict(o["verdict"]),
                runs=o["runs"],
                detail=o["detail"],
                samples=samples,
            )
            self._outcomes[o["number"]] = (line, outcome)
        else:
            s = record["started"]
            self._started[(s["number"], s["index"])] = Started(**s)

    def _hold(self, shown: str) -> None:
        try:
            self._held = sweep_lock.hold(self.path, shown)
        except (sweep_lock.SweepRunning, OSError) as exc:
            raise JournalError(f"cannot lock {self.path}: {exc}") from None

    def close(self) -> None:
        """Give up the sweep's lock (its process ending gives it up too)."""
        if self._held is not None:
            sweep_lock.release(self._held)
            self._held = None

    def _append(self, record: Mapping[str, Any]) -> None:
        line = (json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n").encode()
        with self._lock:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError as exc:
                raise JournalError(f"cannot write {self.path}: {exc.strerror}.") from exc
            try:
                os.write(fd, line)  # one write: concurrent appends never interleave
                os.fsync(fd)
            except OSError as exc:
                raise JournalError(f"cannot write {self.path}: {exc.strerror}.") from exc
            finally:
                os.close(fd)

    # The seal of the command, and of the processes a resume may stop (seal.py).

    def _command_mac(self, key: bytes) -> str:
        header = self.header
        return seal.mac(key, "command", list(header.command), header.origin, self.runs_name)

    def trust(self) -> Trust:
        """Whether the header's command and origin are those the sweep was started with."""
        found, key = self._seal, self._key
        if found is None or key is None or found["key"] != seal.key_id(key):
            return Trust.UNVERIFIABLE
        return Trust.SEALED if found["mac"] == self._command_mac(key) else Trust.CHANGED

    def _started_mac(self, key: bytes, run: Started) -> str:
        values = (run.number, run.index, run.pid, run.start, run.group, run.boot)
        return seal.mac(key, "started", self.runs_name, *values)

    def sealed(self, run: Started) -> bool:
        """Whether ``run``'s record was written by a triage holding the user's key."""
        key = self._key
        return key is not None and run.mac is not None and run.mac == self._started_mac(key, run)

    def leftovers(self) -> list[Started]:
        """The runs that started and never finished (SIGKILL of triage): what may still run."""
        return [run for place, run in sorted(self._started.items()) if place not in self._runs]

    def prepare(self) -> None:
        """Make the runs' folder again when it is gone (a finished sweep, resumed); refuse
        one that is not a folder triage made (a link put in its place)."""
        try:
            self.runs_folder.mkdir()
        except FileExistsError:
            if self.runs_folder.is_symlink() or not self.runs_folder.is_dir():
                raise JournalError(
                    f"{self.runs_folder} is not the folder of runs triage made (a link or a "
                    "file took its place); remove it, then resume."
                ) from None

    def remove_runs(self) -> None:
        """Remove the runs' folder and everything in it (nothing else: owned.py)."""
        owned.remove(self.runs_folder, self.runs_folder)

    # What the engine asks and tells (see engine.Journal).

    def judged(self, number: int, setting: Setting) -> Outcome | None:
        """The journaled verdict on the ``number``-th setting, if it was judged."""
        found = self._outcomes.get(number)
        if found is None:
            return None
        line, outcome = found
        if outcome.setting != setting:
            raise JournalError(
                f"{self.path}:{line}: outcome.knobs: setting {number} is "
                f"{outcome.setting.label} in the journal but {setting.label} now; the journal "
                "is of another sweep."
            )
        self.reused += outcome.runs
        return outcome

    def finished(self, number: int, setting: Setting, index: int, folder: Path) -> Run | None:
        """Run ``index`` of the ``number``-th setting when it finished and its folder is kept;
        else None, once what an interrupted run left in ``folder`` is removed."""
        stdout, stderr = streams(folder)
        entry = self._runs.get((number, index))
        if (
            entry is not None
            and (entry.sweep, entry.knobs) == (setting.sweep.value, setting.knobs)
            and folder.is_dir()
            and stdout.is_file()
            and stderr.is_file()
        ):
            self.reused += 1
            return Run(
                index=index,
                folder=folder,
                stdout=stdout,
                stderr=stderr,
                returncode=entry.returncode,
                timed_out=entry.timed_out,
                wall_s=entry.wall_s,
            )
        for path in (folder, stdout, stderr):
            owned.remove(self.runs_folder, path)
        return None

    def started(self, number: int, index: int, pid: int) -> None:
        """Journal the process of a run that just started (its leader, unreaped)."""
        start, boot = procfs.start_time(pid), procfs.boot_id()
        try:
            group = os.getpgid(pid)
        except OSError:
            return
        if start is None or boot is None:
            return  # no /proc: nothing a resume could verify, so nothing it would stop
        run = Started(
            number=number, index=index, pid=pid, start=start, group=group, boot=boot, mac=None
        )
        key = self._key
        mac = self._started_mac(key, run) if key is not None else None
        self._append({"started": {**asdict(run), "mac": mac}})

    def run_done(self, number: int, setting: Setting, run: Run) -> None:
        """Journal a finished run."""
        self.ran += 1
        self._append(
            {
                "run": {
                    "number": number,
                    "sweep": setting.sweep.value,
                    "knobs": list(setting.knobs),
                    "index": run.index,
                    "returncode": run.returncode,
                    "timed_out": run.timed_out,
                    "wall_s": run.wall_s,
                }
            }
        )

    def outcome(self, number: int, outcome: Outcome) -> None:
        """Journal a judged setting."""
        self._append(
            {
                "outcome": {
                    "number": number,
                    "sweep": outcome.setting.sweep.value,
                    "knobs": list(outcome.setting.knobs),
                    "verdict": outcome.verdict.value,
                    "runs": outcome.runs,
                    "detail": outcome.detail,
                    "samples": list(outcome.samples),
                }
            }
        )


def new_folder(parent: Path) -> Path:
    """A new, empty triage folder under ``parent``, named for the time it starts."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=parent))
