"""Read the per-process record files of a traced run and merge them into reads.

Python processes write ``py-*.jsonl`` (see python_hook.py), the C interposer
``c-*.rec`` (see interposer.c). The traced program can write in the record folder
too, so nothing there is trusted: a record file is read only when it is a regular
file (a symbolic link is not followed; a FIFO or a device is refused) of at most
FILE_BYTES, and at most FILES files and TOTAL_BYTES in all are read; each line is
checked (record_lines.py). What is skipped is counted, never silent. Reads are
merged over processes by (name, level, seen, value); counts add up, sites are the
union. The entries the trace itself put in front of PYTHONPATH and LD_PRELOAD are
taken out of the values seen, so a read shows what the run would have read untraced.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from knobregistry._io.files import FileError, read_bytes
from knobregistry.trace.model import Copy, Level, Read, Seen, TraceSite, Unreadable
from knobregistry.trace.record_lines import Entry, Parsed, c_file, python_file

OWN_PREFIX = "KNOBS_TRACE_"  # the trace's own variables are never reported
FILE_BYTES = 16 * 1024 * 1024
TOTAL_BYTES = 256 * 1024 * 1024
FILES = 65536


@dataclass(frozen=True, slots=True)
class Collected:
    """Everything the record files of one run hold."""

    reads: tuple[Read, ...]
    copies: tuple[Copy, ...]
    processes: tuple[int, int]  # Python record files, C record files
    unreadable: Unreadable = field(default_factory=Unreadable)
    unrecorded: int = 0  # reads the processes counted but did not keep (their bounds)


@dataclass(slots=True)
class _Group:
    count: int = 0
    sites: set[TraceSite] = field(default_factory=set)
    frames: set[TraceSite] = field(default_factory=set)


@dataclass(slots=True)
class _Merged:
    """The reads of the files read so far, merged as they come."""

    injected: Mapping[str, tuple[str, str]]
    groups: dict[tuple[str, Level, Seen, str | None], _Group] = field(default_factory=dict)
    copies: dict[TraceSite, int] = field(default_factory=dict)
    unrecorded: int = 0
    bad_lines: int = 0

    def add(self, parsed: Parsed) -> None:
        for entry in parsed.entries:
            if entry.name in self.injected and entry.value is not None:
                _untrace(entry, *self.injected[entry.name])
            if entry.name.startswith(OWN_PREFIX):
                continue
            group = self.groups.setdefault(
                (entry.name, entry.level, entry.seen, entry.value), _Group()
            )
            group.count += entry.count
            group.sites.add(entry.site)
            group.frames.update((entry.site, *entry.frames))
        for site, count in parsed.copies.items():
            self.copies[site] = self.copies.get(site, 0) + count
        self.unrecorded += parsed.unrecorded
        self.bad_lines += parsed.bad

    def reads(self) -> tuple[Read, ...]:
        """One read per (name, level, seen, value), sorted."""
        reads = [
            Read(
                name=name,
                level=level,
                seen=seen,
                value=value,
                count=group.count,
                sites=tuple(sorted(group.sites, key=_site_key)),
                frames=frozenset(group.frames),
            )
            for (name, level, seen, value), group in self.groups.items()
        ]
        return tuple(sorted(reads, key=lambda r: r.sort_key))


def collect(folder: Path, injected: Mapping[str, tuple[str, str]] | None = None) -> Collected:
    """Read every record file in ``folder``; ``injected`` maps a variable to the entry
    the trace put first in it and the separator that follows that entry."""
    merged = _Merged(injected or {})
    processes = {"py": 0, "c": 0}
    skipped = 0
    try:
        directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # the program removed the folder, or put something else there
        return Collected((), (), (0, 0), Unreadable(files=1))
    try:
        with os.scandir(directory) as entries:
            names = sorted(e.name for e in entries if _kind(e.name))
        budget = TOTAL_BYTES
        for number, name in enumerate(names):
            try:
                if number >= FILES or budget <= 0:
                    raise FileError(Path(name), "past the bounds of a trace")
                data = read_bytes(
                    Path(name), min(FILE_BYTES, budget), follow=False, folder=directory
                )
            except FileError:
                skipped += 1
                continue
            budget -= len(data)
            kind = "py" if _kind(name) == "py" else "c"
            merged.add(python_file(data) if kind == "py" else c_file(data))
            processes[kind] += 1
    finally:
        os.close(directory)
    return Collected(
        reads=merged.reads(),
        copies=tuple(Copy(site, count) for site, count in sorted(merged.copies.items())),
        processes=(processes["py"], processes["c"]),
        unreadable=Unreadable(files=skipped, lines=merged.bad_lines),
        unrecorded=merged.unrecorded,
    )


def _kind(name: str) -> str | None:
    """ "py" for a Python record file's name, "c" for a C one's, None for another."""
    if name.startswith("py-") and name.endswith(".jsonl"):
        return "py"
    if name.startswith("c-") and name.endswith(".rec"):
        return "c"
    return None


def _untrace(entry: Entry, first: str, separator: str) -> None:
    """Take the trace's own entry out of the value seen."""
    assert entry.value is not None
    if entry.value == first:
        entry.seen, entry.value = Seen.UNSET, None
    elif entry.value.startswith(first + separator):
        entry.value = entry.value[len(first + separator) :]


def _site_key(site: TraceSite) -> tuple[str, int]:
    return (site.path, site.line or 0)
