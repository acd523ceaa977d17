"""One record file's lines, each checked as untrusted: the traced program can write there.

A Python file (see python_hook.py) holds JSON lines; a C file (see interposer.c) holds
``R`` records with sized fields and ``C``, ``O``, ``U`` count lines. A line is taken
only when every field has its type and stays within its bound (python_hook's MAX_NAME,
MAX_VALUE, MAX_PATH); any other line is counted in ``Parsed.bad`` and skipped. A last
line cut short (a process killed while writing it) is skipped and not counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from knobregistry._io.jsontext import loads
from knobregistry.trace.model import Level, Seen, TraceSite
from knobregistry.trace.python_hook import MAX_NAME, MAX_PATH, MAX_VALUE, STACK_DEPTH, VALUES

MAX_COUNT = 2**63  # reads in one count line
MAX_ID = 2**31
MAX_LINE = 256 * 1024  # bytes of a JSON line: the longest value, escaped, and a stack
_STATES = {"v": Seen.VALUE, "u": Seen.UNSET, "s": Seen.WITHHELD, "l": Seen.LONG}
_C_HEADER = 96  # bytes before the colon of an R record, at most
_HEX = frozenset(b"0123456789abcdef")


@dataclass(slots=True, kw_only=True)
class Entry:
    """The reads of one value at one site, in one file."""

    name: str
    level: Level
    seen: Seen
    value: str | None
    site: TraceSite
    count: int = 1
    frames: list[TraceSite] = field(default_factory=list)


@dataclass(slots=True)
class Parsed:
    """What one file holds: its entries, copies, unrecorded reads and bad lines."""

    entries: list[Entry] = field(default_factory=list)
    copies: dict[TraceSite, int] = field(default_factory=dict)
    unrecorded: int = 0
    bad: int = 0


def _lines(data: bytes) -> list[bytes]:
    """Whole lines only: a last line with no newline was cut short."""
    return data.split(b"\n")[:-1]


def _number(item: object, low: int, high: int) -> int | None:
    return item if type(item) is int and low <= item <= high else None


def _text(item: object, limit: int) -> str | None:
    if not isinstance(item, str) or len(item) > limit:
        return None
    return item if len(item.encode("utf-8", "surrogatepass")) <= limit else None


def _site(item: object) -> TraceSite | None:
    """``[path, line]``."""
    if not isinstance(item, list) or len(item) != 2:
        return None
    path, line = _text(item[0], MAX_PATH), _number(item[1], 0, MAX_ID)
    return None if path is None or line is None else TraceSite(path, line)


def _stack(item: object) -> list[TraceSite] | None:
    if not isinstance(item, list) or len(item) > STACK_DEPTH:
        return None
    sites = [_site(frame) for frame in item]
    return [s for s in sites if s is not None] if None not in sites else None


def python_file(data: bytes) -> Parsed:
    """The entries of a ``py-*.jsonl`` file."""
    parsed = Parsed()
    by_id: dict[int, Entry] = {}
    others: dict[int, int] = {}
    for line in _lines(data):
        try:
            item = loads(line) if len(line) <= MAX_LINE else None
        except ValueError:
            item = None
        if not isinstance(item, dict) or not _python_line(item, parsed, by_id, others):
            parsed.bad += 1
    for first, count in others.items():
        entry = by_id.get(first)
        if entry is None:
            parsed.bad += 1
            continue
        parsed.entries.append(_others(entry, count))
    parsed.entries.extend(by_id.values())
    return parsed


def _python_line(
    item: dict[str, object], parsed: Parsed, by_id: dict[int, Entry], others: dict[int, int]
) -> bool:
    """Take one line's object; False when it is no record."""
    if "copy" in item:
        site, more = _site(item["copy"]), _number(item.get("more", 1), 1, MAX_COUNT)
        if site is None or more is None:
            return False
        parsed.copies[site] = parsed.copies.get(site, 0) + more
        return True
    if "unrecorded" in item:
        more = _number(item["unrecorded"], 1, MAX_COUNT)
        parsed.unrecorded += more or 0
        return more is not None
    identifier = _number(item.get("id"), 0, MAX_ID)
    if identifier is None:
        return False
    if "name" in item:
        entry = _python_entry(item)
        if entry is None or identifier in by_id:
            return False
        by_id[identifier] = entry
        return True
    for key in ("more", "others"):
        if key in item:
            more = _number(item[key], 1, MAX_COUNT)
            if more is None or identifier not in by_id:
                return False
            if key == "more":
                by_id[identifier].count += more
            else:
                others[identifier] = others.get(identifier, 0) + more
            return True
    return False


def _python_entry(item: dict[str, object]) -> Entry | None:
    state = item.get("state")
    seen = _STATES.get(state) if isinstance(state, str) else None
    name = _text(item["name"], MAX_NAME)
    path = _text(item.get("path"), MAX_PATH)
    line = _number(item.get("line"), 0, MAX_ID)
    stack = _stack(item.get("stack", []))
    if seen is None or name is None or path is None or line is None or stack is None:
        return None
    value = _text(item.get("value"), MAX_VALUE) if seen is Seen.VALUE else None
    if seen is Seen.VALUE and value is None:
        return None
    return Entry(
        name=name,
        level=Level.PYTHON,
        seen=seen,
        value=value,
        site=TraceSite(path, line),
        frames=stack,
    )


def _others(entry: Entry, count: int) -> Entry:
    """The reads of the values past those kept at ``entry``'s site."""
    return Entry(
        name=entry.name,
        level=entry.level,
        seen=Seen.OTHERS,
        value=None,
        site=entry.site,
        count=count,
        frames=entry.frames,
    )


class _CutShort(Exception):
    """A last record that ends past the end of the file: its process was killed."""


@dataclass(frozen=True, slots=True)
class _CRecord:
    pair: bytes
    index: int
    entry: Entry
    end: int  # where the next line starts


def c_file(data: bytes) -> Parsed:
    """The entries of a ``c-*.rec`` file."""
    parsed = Parsed()
    records: dict[tuple[bytes, int], Entry] = {}
    more: dict[tuple[bytes, int], int] = {}
    others: dict[bytes, int] = {}
    at = 0
    while at < len(data):
        end = data.find(b"\n", at)
        if end < 0:
            break  # cut short
        if data.startswith(b"R ", at):
            try:
                record = _c_record(data, at)
            except _CutShort:
                break
            if record is None or (record.pair, record.index) in records:
                parsed.bad += 1
            else:
                records[record.pair, record.index] = record.entry
            at = end + 1 if record is None else record.end
            continue
        if not _c_count(data[at:end].split(b" "), parsed, more, others):
            parsed.bad += 1
        at = end + 1
    for (pair, index), count in more.items():
        if (pair, index) in records:
            records[pair, index].count += count
        else:
            parsed.bad += 1
    by_pair = {pair: entry for (pair, _), entry in records.items()}
    for pair, count in others.items():
        if pair in by_pair:
            parsed.entries.append(_others(by_pair[pair], count))
        else:
            parsed.bad += 1
    parsed.entries.extend(records.values())
    return parsed


def _digits(field_bytes: bytes, most: int) -> int | None:
    if not field_bytes.isdigit() or not field_bytes.isascii() or len(field_bytes) > 19:
        return None
    number = int(field_bytes)
    return number if number <= most else None


def _key(field_bytes: bytes) -> bytes | None:
    return field_bytes if len(field_bytes) == 16 and set(field_bytes) <= _HEX else None


def _c_count(
    fields: list[bytes],
    parsed: Parsed,
    more: dict[tuple[bytes, int], int],
    others: dict[bytes, int],
) -> bool:
    """``C <pair> <index> <n>``, ``O <pair> <n>`` or ``U <n>``; False for anything else."""
    shape = {b"C": 4, b"O": 3, b"U": 2}.get(fields[0])
    if shape is None or len(fields) != shape:
        return False
    count = _digits(fields[-1], MAX_COUNT)
    if count is None or count == 0:
        return False
    if fields[0] == b"U":
        parsed.unrecorded += count
        return True
    key = _key(fields[1])
    if key is None:
        return False
    if fields[0] == b"O":
        others[key] = others.get(key, 0) + count
        return True
    index = _digits(fields[2], VALUES - 1)
    if index is None:
        return False
    more[key, index] = more.get((key, index), 0) + count
    return True


def _c_record(data: bytes, at: int) -> _CRecord | None:
    """``R <pair> <index> <state> <n> <v> <l>:<name><value><library>\\n`` at ``at``;
    None when it is not one; raises _CutShort when it ends past the end of ``data``."""
    colon = data.find(b":", at, at + _C_HEADER)
    fields = data[at:colon].split(b" ") if colon >= 0 else []
    if len(fields) != 7:
        return None
    pair, index = _key(fields[1]), _digits(fields[2], VALUES - 1)
    seen = _STATES.get(fields[3].decode("ascii", "replace"))
    limits = (MAX_NAME, MAX_VALUE if seen is Seen.VALUE else 0, MAX_PATH)
    sizes = [_digits(f, most) for f, most in zip(fields[4:], limits, strict=True)]
    if pair is None or index is None or seen is None or None in sizes:
        return None
    bounds = [colon + 1]
    for size in sizes:
        bounds.append(bounds[-1] + (size or 0))
    if bounds[-1] >= len(data):
        raise _CutShort
    if data[bounds[-1] : bounds[-1] + 1] != b"\n":
        return None
    name, value, library = (
        data[bounds[i] : bounds[i + 1]].decode("utf-8", "backslashreplace") for i in range(3)
    )
    entry = Entry(
        name=name,
        level=Level.C,
        seen=seen,
        value=value if seen is Seen.VALUE else None,
        site=TraceSite(library or "(program)"),
    )
    return _CRecord(pair, index, entry, bounds[-1] + 1)
