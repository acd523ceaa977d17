"""`--compare checksums:DIR`: where two runs' per-module checksums first differ.

Each run writes DIR/rank-R.jsonl (knobregistry.torch, enabled by KNOBS_CHECKSUMS,
which triage sets to the run's own DIR). Two runs are compared rank by rank, record
by record in the order the hooks ran: the first record whose fingerprint differs names
the step, the pass, the module and the tensor. The files are the command's output, so
they are read as untrusted: bounded in size, every field checked. Reading them needs no
torch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from knobregistry._io.checksum_format import FORMAT, PASSES, RANK_FILE, VERSION
from knobregistry._io.jsontext import loads
from knobregistry._text.plural import counted

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_LINE_CHARS = 64 * 1024
SHOWN_CHARS = 160
_LOCATION = re.compile(r"first difference at (.+?)(?:; | \(\d+ more ranks? also |$)", re.M)


class ChecksumsError(ValueError):
    """Records that cannot be compared: none written, or not in the format."""


@dataclass(frozen=True, slots=True)
class Record:
    """One tensor's fingerprint: where it was seen, and its digest (None: not readable)."""

    step: int
    pass_: str
    module: str
    tensor: str
    digest: str | None

    @property
    def place(self) -> tuple[int, str, str, str]:
        """What must match between two runs for their digests to be compared."""
        return (self.step, self.pass_, self.module, self.tensor)

    def __str__(self) -> str:
        return f"step {self.step}, {self.pass_}, {_cut(self.module)} ({_cut(self.tensor)})"


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first record where two runs differ, and what follows it."""

    rank: int
    world_size: int
    first: Record
    modules_after: int  # other modules with a differing record after the first
    unreadable_before: int  # records before it that could not be fingerprinted

    def __str__(self) -> str:
        where = f" on rank {self.rank}" if self.world_size > 1 else ""
        text = f"first difference at {self.first}{where}"
        if self.modules_after:
            verb = "differs" if self.modules_after == 1 else "differ"
            text += f"; {counted(self.modules_after, 'more module')} {verb} after it"
        if self.unreadable_before:
            text += (
                f"; {counted(self.unreadable_before, 'tensor')} before it could not be "
                "fingerprinted, so the difference may start earlier"
            )
        return text


@dataclass(frozen=True, slots=True)
class RankRecords:
    """One rank's file: its header's world size and its records, in order."""

    world_size: int
    records: tuple[Record, ...]


def read_folder(folder: Path, shown: str) -> dict[int, RankRecords]:
    """Every rank's records in ``folder``; raises ChecksumsError naming what is wrong.

    ``shown`` is the folder as the user wrote it, for messages.
    """
    if not folder.is_dir():
        raise ChecksumsError(
            f"wrote no folder {shown}; the training script must call "
            "checksums_from_env(model, optimizer) from knobregistry.torch "
            "(python -m pydoc knobregistry.torch)"
        )
    ranks: dict[int, RankRecords] = {}
    try:
        for path in sorted(folder.iterdir()):
            match = RANK_FILE.fullmatch(path.name)
            if match is not None and path.is_file() and not path.is_symlink():
                ranks[int(match.group(1))] = _read_file(path, f"{shown}/{path.name}")
    except OSError as exc:
        raise ChecksumsError(f"wrote {shown}, which could not be read: {exc.strerror}") from exc
    if not ranks:
        raise ChecksumsError(
            f"wrote no rank-R.jsonl in {shown}; the training script must call "
            "checksums_from_env(model, optimizer) before training "
            "(python -m pydoc knobregistry.torch)"
        )
    if not any(r.records for r in ranks.values()):
        raise ChecksumsError(
            f"recorded no checksums in {shown}: no hooked module ran; attach the model that "
            "is trained"
        )
    return ranks


def _read_file(path: Path, shown: str) -> RankRecords:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ChecksumsError(
            f"wrote {shown}, over {MAX_FILE_BYTES // (1024 * 1024)} MiB; record fewer steps "
            "(KNOBS_CHECKSUMS_STEPS)"
        )
    records: list[Record] = []
    world_size = 1
    with path.open("r", encoding="utf-8", errors="replace") as file:
        for number, line in enumerate(file, start=1):
            if len(line) > MAX_LINE_CHARS:
                raise ChecksumsError(
                    f"wrote {shown}, whose line {number} is over {MAX_LINE_CHARS} characters"
                )
            try:
                value = loads(line)
            except json.JSONDecodeError as exc:
                raise ChecksumsError(
                    f"wrote {shown}, whose line {number} is not JSON ({exc.msg})"
                ) from exc
            if number == 1:
                world_size = _header(value, shown)
            else:
                records.append(_record(value, f"wrote {shown}, whose line {number}"))
    return RankRecords(world_size, tuple(records))


def _header(value: object, shown: str) -> int:
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise ChecksumsError(f"wrote {shown}, which does not start with a {FORMAT} header")
    if value.get("version") != VERSION:
        raise ChecksumsError(
            f"wrote {shown} in format version {value.get('version')!r}; this knobs reads version "
            f"{VERSION}"
        )
    size = value.get("world_size")
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else 1


def _record(value: object, where: str) -> Record:
    if not isinstance(value, dict):
        raise ChecksumsError(f"{where} is not a record (a JSON object)")
    step, pass_ = value.get("step"), value.get("pass")
    module, tensor, digest = value.get("module"), value.get("tensor"), value.get("blake2b")
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise ChecksumsError(f"{where} has no 'step' (a number, 0 or more)")
    if pass_ not in PASSES:
        raise ChecksumsError(f"{where} has no 'pass' ({' or '.join(PASSES)})")
    if not isinstance(module, str) or not isinstance(tensor, str):
        raise ChecksumsError(f"{where} has no 'module' and 'tensor' (text)")
    if digest is not None and not isinstance(digest, str):
        raise ChecksumsError(f"{where} has a 'blake2b' that is neither text nor null")
    assert isinstance(pass_, str)
    return Record(step, pass_, module, tensor, digest)


def difference(
    first: dict[int, RankRecords], other: dict[int, RankRecords], index: int
) -> str | None:
    """Where run ``index``'s records first differ from run 1's; None when they all match."""
    if set(first) != set(other):
        return (
            f"in its checksum files: run 1 wrote ranks {_ranks(first)}, run {index} ranks "
            f"{_ranks(other)}"
        )
    found: list[Divergence | str] = []
    for rank in sorted(first):
        result = _rank_difference(rank, first[rank], other[rank], index)
        if result is not None:
            found.append(result)
    if not found:
        return None
    divergences = [d for d in found if isinstance(d, Divergence)]
    shown: Divergence | str = (
        min(divergences, key=lambda d: (d.first.step, d.rank)) if divergences else found[0]
    )
    more = len(found) - 1
    tail = f" ({counted(more, 'more rank')} also {'differs' if more == 1 else 'differ'})"
    text = f"in its checksums: {shown}" if isinstance(shown, Divergence) else shown
    return text + (tail if more else "")


def _rank_difference(
    rank: int, one: RankRecords, two: RankRecords, index: int
) -> Divergence | str | None:
    unreadable = 0
    pairs = _pairs(one.records, two.records)
    for a, b in pairs:
        if a is None or b is None or a.place != b.place:
            return _structure(rank, one.world_size, a, b, index)
        if a.digest is None or b.digest is None:
            unreadable += 1
            continue
        if a.digest != b.digest:
            later = {  # the rest of ``pairs``: the records after this one
                c.module
                for c, d in pairs
                if c is not None and d is not None and c.digest != d.digest
            }
            later.discard(a.module)
            return Divergence(rank, one.world_size, a, len(later), unreadable)
    return None


def _pairs(
    one: tuple[Record, ...], two: tuple[Record, ...]
) -> Iterator[tuple[Record | None, Record | None]]:
    for index in range(max(len(one), len(two))):
        yield (one[index] if index < len(one) else None, two[index] if index < len(two) else None)


def _structure(rank: int, world_size: int, a: Record | None, b: Record | None, index: int) -> str:
    where = f" on rank {rank}" if world_size > 1 else ""
    if a is None:
        return f"in its checksums: run {index} recorded more{where}, from {b}"
    if b is None:
        return f"in its checksums: run 1 recorded more{where}, from {a}"
    return (
        f"in its checksums: the runs recorded different tensors{where} (the modules ran in "
        f"another order, or other modules ran): {a} in run 1, {b} in run {index}"
    )


def _ranks(ranks: dict[int, RankRecords]) -> str:
    return ", ".join(str(r) for r in sorted(ranks)) or "none"


def _cut(text: str) -> str:
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def location(detail: str) -> str | None:
    """The step, pass, module and tensor a checksums difference names; None if none."""
    found = _LOCATION.search(detail)
    return found.group(1) if found is not None else None
