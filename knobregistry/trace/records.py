"""Read the per-process record files of a traced run and merge them into reads.

Python processes write ``py-*.jsonl`` (see python_hook.py), the C interposer
``c-*.rec`` (see interposer.c). A line cut short by a killed process is skipped;
everything before it counts. Reads are merged over processes by (name, level,
value); counts add up, sites are the union. The entries the trace itself put in
front of PYTHONPATH and LD_PRELOAD are taken out of the values seen, so a read
shows what the run would have read untraced.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from knobregistry.jsontext import loads
from knobregistry.trace.model import Copy, Level, Read, Seen, TraceSite

OWN_PREFIX = "KNOBS_TRACE_"  # the trace's own variables are never reported
_STATES = {"v": Seen.VALUE, "u": Seen.UNSET, "s": Seen.WITHHELD}


@dataclass(slots=True, kw_only=True)
class _Entry:
    name: str
    level: Level
    seen: Seen
    value: str | None
    site: TraceSite
    count: int = 1
    frames: list[TraceSite] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Collected:
    """Everything the record files of one run hold."""

    reads: tuple[Read, ...]
    copies: tuple[Copy, ...]
    processes: tuple[int, int]  # Python record files, C record files


def collect(folder: Path, injected: Mapping[str, tuple[str, str]] | None = None) -> Collected:
    """Read every record file in ``folder``; ``injected`` maps a variable to the entry
    the trace put first in it and the separator that follows that entry."""
    entries: list[_Entry] = []
    copies: dict[TraceSite, int] = {}
    python_files = sorted(folder.glob("py-*.jsonl"))
    c_files = sorted(folder.glob("c-*.rec"))
    for path in python_files:
        entries.extend(_python_entries(path.read_bytes(), copies))
    for path in c_files:
        entries.extend(_c_entries(path.read_bytes()))
    for entry in entries:
        if entry.name in (injected or {}) and entry.value is not None:
            _untrace(entry, *(injected or {})[entry.name])
    return Collected(
        reads=merge(e for e in entries if not e.name.startswith(OWN_PREFIX)),
        copies=tuple(Copy(site, count) for site, count in sorted(copies.items())),
        processes=(len(python_files), len(c_files)),
    )


def _untrace(entry: _Entry, first: str, separator: str) -> None:
    """Take the trace's own entry out of the value seen."""
    assert entry.value is not None
    if entry.value == first:
        entry.seen, entry.value = Seen.UNSET, None
    elif entry.value.startswith(first + separator):
        entry.value = entry.value[len(first + separator) :]


def merge(entries: Iterable[_Entry]) -> tuple[Read, ...]:
    """One read per (name, level, seen, value), sorted."""
    groups: dict[tuple[str, Level, Seen, str | None], list[_Entry]] = {}
    for entry in entries:
        groups.setdefault((entry.name, entry.level, entry.seen, entry.value), []).append(entry)
    reads = [
        Read(
            name=name,
            level=level,
            seen=seen,
            value=value,
            count=sum(e.count for e in group),
            sites=tuple(sorted({e.site for e in group}, key=_site_key)),
            frames=frozenset(f for e in group for f in (e.site, *e.frames)),
        )
        for (name, level, seen, value), group in groups.items()
    ]
    return tuple(sorted(reads, key=lambda r: r.sort_key))


def _site_key(site: TraceSite) -> tuple[str, int]:
    return (site.path, site.line or 0)


def _lines(data: bytes) -> Iterator[bytes]:
    """Whole lines only: a last line with no newline was cut short."""
    *complete, _rest = data.split(b"\n")
    yield from complete


def _python_entries(data: bytes, copies: dict[TraceSite, int]) -> list[_Entry]:
    by_id: dict[int, _Entry] = {}
    for line in _lines(data):
        try:
            item = loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        if "copy" in item:
            path, number = item["copy"]
            site = TraceSite(str(path), int(number))
            copies[site] = copies.get(site, 0) + int(item.get("more", 1))
        elif "more" in item and item.get("id") in by_id:
            by_id[item["id"]].count += int(item["more"])
        elif "name" in item:
            seen = _STATES.get(str(item.get("state")), Seen.UNSET)
            by_id[int(item["id"])] = _Entry(
                name=str(item["name"]),
                level=Level.PYTHON,
                seen=seen,
                value=str(item["value"]) if seen is Seen.VALUE else None,
                site=TraceSite(str(item["path"]), int(item["line"])),
                frames=[TraceSite(str(p), int(n)) for p, n in item.get("stack", ())],
            )
    return list(by_id.values())


def _c_entries(data: bytes) -> list[_Entry]:
    """``R <key> <state> <n> <v> <l>:<name><value><library>\\n`` and ``C <key> <extra>\\n``."""
    by_key: dict[str, list[_Entry]] = {}
    extra: dict[str, int] = {}
    at = 0
    while at < len(data):
        colon = data.find(b":", at)
        end = data.find(b"\n", at)
        if data.startswith(b"C ", at) and end >= 0:
            fields = data[at:end].split()
            if len(fields) == 3 and fields[2].isdigit():
                key = fields[1].decode("ascii", "replace")
                extra[key] = extra.get(key, 0) + int(fields[2])
            at = end + 1
            continue
        if not data.startswith(b"R ", at) or colon < 0:
            break
        fields = data[at:colon].split()
        if len(fields) != 6 or not all(f.isdigit() for f in fields[3:]):
            break
        sizes = [int(f) for f in fields[3:]]
        start = colon + 1
        stop = start + sum(sizes)
        if data[stop : stop + 1] != b"\n":
            break  # cut short
        name, value, library = _split(data[start:stop], sizes)
        seen = _STATES.get(fields[2].decode("ascii", "replace"), Seen.UNSET)
        entry = _Entry(
            name=name,
            level=Level.C,
            seen=seen,
            value=value if seen is Seen.VALUE else None,
            site=TraceSite(library or "(program)"),
        )
        by_key.setdefault(fields[1].decode("ascii", "replace"), []).append(entry)
        at = stop + 1
    for key, count in extra.items():
        if key in by_key:
            by_key[key][0].count += count
    return [entry for group in by_key.values() for entry in group]


def _split(data: bytes, sizes: list[int]) -> tuple[str, str, str]:
    parts: list[str] = []
    at = 0
    for size in sizes:
        parts.append(data[at : at + size].decode("utf-8", "backslashreplace"))
        at += size
    return parts[0], parts[1], parts[2]
