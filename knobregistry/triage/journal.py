"""The journal of a triage, so that a sweep whose driver dies can be resumed.

A triage folder (`--dir DIR`) holds `journal.jsonl` and, while their setting is
not judged yet, the runs' own folders (`runs/`). The journal's first line is its
header: what the sweep is (command, compare mode, knobs, runs, the registry's
digest, ...). Then one JSON line per finished run (its setting, index, exit
status, wall time) and one per judged setting (its verdict, detail and --cost
samples), each appended as it happens with one `write` to a file opened
O_APPEND, then fsync'd. A line torn by SIGKILL (the last one, without its
newline or not JSON) is dropped when the journal is opened again.

A setting's verdict needs all its runs' outputs, so a run's folder (its outputs,
stdout and stderr) stays under `runs/` until its setting is judged, then goes.
On resume, a journaled verdict is taken as is; a journaled run whose folder is
still there is taken as is; any other run is run again (what an interrupted run
left behind is removed first). Settings are numbered in the order the sweep
makes them, which depends only on earlier verdicts, so a resumed sweep makes
the same settings as an uninterrupted one. A run that a SIGKILL of triage left
running (in its own process group, in its folder under `runs/`) is stopped when
the sweep is resumed.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

from knobregistry import procfs
from knobregistry.jsontext import loads
from knobregistry.registry import Sweep, Verdict
from knobregistry.triage.model import Outcome, Run, Setting

FORMAT = 1
JOURNAL = "journal.jsonl"
RUNS = "runs"


class JournalError(Exception):
    """A triage folder that cannot be used: no journal, a damaged one, another sweep's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Header:
    """What a sweep is: a journal resumes only a sweep with the same header."""

    command: tuple[str, ...]  # as typed
    origin: str  # the folder triage was started from (relative arguments resolve there)
    compare: str
    knobs: tuple[str, ...]  # the candidates
    profile: str | None
    runs: int
    pairs: bool
    bisect: bool
    cost: str | None  # the --cost metric, `wall` or `regex:PATTERN`
    cost_higher_is_better: bool
    registry: str  # the registry, as shown to the user
    registry_sha256: str  # of its bytes when the sweep started
    search: str | None = None  # --search, `fastest-bitwise`

    def to_json(self) -> dict[str, Any]:
        return {"journal": "knobs-triage", "format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Header:
        # A field with a default may be absent: a journal of an older knobs lacks it.
        values = {
            f.name: data[f.name] if f.default is MISSING else data.get(f.name, f.default)
            for f in fields(cls)
        }
        values["command"] = tuple(values["command"])
        values["knobs"] = tuple(values["knobs"])
        return cls(**values)


def differences(journal: Header, now: Header) -> list[str]:
    """What differs between the sweep journaled and the one asked for now, one line each."""
    lines: list[str] = []

    def differ(name: str, then: str, current: str) -> None:
        if then != current:
            lines.append(f"{name}: {then} in the journal, {current} now")

    differ("command", f"`{shlex.join(journal.command)}`", f"`{shlex.join(now.command)}`")
    differ("started from", journal.origin, now.origin)
    differ("compare", journal.compare, now.compare)
    differ("knobs", _names(journal.knobs), _names(now.knobs))
    differ("profile", journal.profile or "none", now.profile or "none")
    differ("runs", str(journal.runs), str(now.runs))
    differ("pairs", _yes(journal.pairs), _yes(now.pairs))
    differ("bisect", _yes(journal.bisect), _yes(now.bisect))
    differ("cost", _cost(journal), _cost(now))
    differ("search", journal.search or "none", now.search or "none")
    if journal.registry_sha256 != now.registry_sha256:
        lines.append(
            f"registry: {now.registry} changed since the sweep started (sha256 "
            f"{journal.registry_sha256[:12]} then, {now.registry_sha256[:12]} now), so the "
            "knobs' values may differ"
        )
    return lines


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) or "none"


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _cost(header: Header) -> str:
    if header.cost is None:
        return "none"
    return header.cost + (" (higher is better)" if header.cost_higher_is_better else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class _RunEntry:
    sweep: str
    knobs: tuple[str, ...]
    returncode: int | None
    timed_out: bool
    wall_s: float


class Journal:
    """A sweep's journal: what is done already, and the appends of what gets done."""

    def __init__(self, folder: Path, header: Header) -> None:
        self.folder = folder
        self.header = header
        self.path = folder / JOURNAL
        self._runs: dict[tuple[int, int], _RunEntry] = {}
        self._outcomes: dict[int, Outcome] = {}
        self._lock = threading.Lock()
        self.reused = 0  # runs taken from the journal, in this invocation
        self.ran = 0  # runs made in this invocation

    @property
    def runs_folder(self) -> Path:
        """Where the runs' own folders are."""
        return self.folder / RUNS

    @property
    def journaled(self) -> tuple[int, int]:
        """How many settings were judged, and how many runs finished, before this invocation."""
        return len(self._outcomes), len(self._runs)

    @classmethod
    def create(cls, folder: Path, header: Header) -> Journal:
        """Start the journal of a new sweep in ``folder`` (made here when missing)."""
        folder.mkdir(parents=True, exist_ok=True)
        journal = cls(folder, header)
        if journal.path.exists():
            raise JournalError(
                f"{folder} holds the journal of a sweep already; continue it with "
                f"`knobs triage --resume {folder}`, or name a new folder."
            )
        journal._append(header.to_json())
        return journal

    @classmethod
    def open(cls, folder: Path) -> Journal:
        """The journal in ``folder``, with what it holds; a torn last line is dropped."""
        path = folder / JOURNAL
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise JournalError(
                f"{folder} holds no triage journal ({JOURNAL}); start a sweep there with "
                f"`knobs triage --dir {folder} -- COMMAND`."
            ) from None
        except OSError as exc:
            raise JournalError(f"cannot read {path}: {exc.strerror}.") from exc
        lines = data.split(b"\n")
        complete = lines[:-1]  # what follows the last newline was torn (or is empty)
        records: list[dict[str, Any]] = []
        for number, line in enumerate(complete, 1):
            try:
                record = loads(line)
            except ValueError:
                if number == len(complete):
                    break  # torn in a way that kept its newline: treat as the torn last line
                raise JournalError(
                    f"{path}:{number}: not a JSON line; the journal is damaged."
                ) from None
            records.append(record)
        if not records or records[0].get("journal") != "knobs-triage":
            raise JournalError(f"{path} is not a knobs triage journal.")
        if records[0].get("format") != FORMAT:
            raise JournalError(
                f"{path} is a journal of format {records[0].get('format')!r}; this knobs "
                f"reads format {FORMAT}: finish it with the knobs that started it."
            )
        try:
            journal = cls(folder, Header.from_json(records[0]))
            for record in records[1:]:
                journal._load(record)
        except (KeyError, TypeError, ValueError) as exc:
            raise JournalError(f"{path}: a line lacks {exc}; the journal is damaged.") from exc
        kept = sum(len(line) + 1 for line in complete[: len(records)])
        if kept != len(data):
            os.truncate(path, kept)  # so that the next append starts a line of its own
        return journal

    def _load(self, record: Mapping[str, Any]) -> None:
        if "run" in record:
            r = record["run"]
            key = (int(r["number"]), int(r["index"]))
            self._runs[key] = _RunEntry(
                sweep=r["sweep"],
                knobs=tuple(r["knobs"]),
                returncode=r["returncode"],
                timed_out=bool(r["timed_out"]),
                wall_s=r["wall_s"],
            )
        elif "outcome" in record:
            o = record["outcome"]
            setting = Setting(Sweep(o["sweep"]), tuple(o["knobs"]))
            samples = tuple(None if s is None else float(s) for s in o["samples"])
            self._outcomes[int(o["number"])] = Outcome(
                setting=setting,
                verdict=Verdict(o["verdict"]),
                runs=int(o["runs"]),
                detail=o["detail"],
                samples=samples,
            )

    def _append(self, record: Mapping[str, Any]) -> None:
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)  # one write: concurrent appends never interleave
                os.fsync(fd)
            finally:
                os.close(fd)

    # What the engine asks and tells (see engine.Journal).

    def judged(self, number: int, setting: Setting) -> Outcome | None:
        """The journaled verdict on the ``number``-th setting, if it was judged."""
        outcome = self._outcomes.get(number)
        if outcome is None:
            return None
        if outcome.setting != setting:
            raise JournalError(
                f"{self.path}: setting {number} is {outcome.setting.label} in the journal but "
                f"{setting.label} now; the journal is of another sweep."
            )
        self.reused += outcome.runs
        return outcome

    def finished(self, number: int, setting: Setting, index: int, folder: Path) -> Run | None:
        """Run ``index`` of the ``number``-th setting when it finished and its folder is kept;
        else None, once what an interrupted run left in ``folder`` is removed."""
        stdout, stderr = _streams(folder)
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
        shutil.rmtree(folder, ignore_errors=True)
        for stream in (stdout, stderr):
            stream.unlink(missing_ok=True)
        return None

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


def _streams(folder: Path) -> tuple[Path, Path]:
    """Where the runner keeps a run's stdout and stderr (beside its folder)."""
    return folder.parent / f"{folder.name}.stdout", folder.parent / f"{folder.name}.stderr"


def new_folder(parent: Path) -> Path:
    """A new, empty triage folder under ``parent``, named for the time it starts."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=parent))


def stop_leftovers(folder: Path, grace_s: float = 5.0) -> list[int]:
    """Stop what runs of an interrupted sweep left running (after a SIGKILL of triage,
    the runs go on in their own process groups): the groups of the processes whose
    working directory is under ``folder``. Their group ids, sorted; Linux only (/proc)."""
    root = folder.resolve()
    groups: set[int] = set()
    pids: list[int] = []
    for pid in procfs.pids() or ():
        cwd = procfs.working_directory(pid)
        if cwd is None or not (cwd == root or root in cwd.parents):
            continue
        try:
            group = os.getpgid(pid)
        except OSError:
            continue
        if group != os.getpgrp():
            groups.add(group)
            pids.append(pid)
    for group in groups:
        with suppress(OSError):
            os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(procfs.alive(pid) for pid in pids):
        time.sleep(0.05)
    for group in groups:
        with suppress(OSError):
            os.killpg(group, signal.SIGKILL)
    return sorted(groups)
