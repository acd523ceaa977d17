"""`regex:` on a distributed run's output: lines with a rank prefix compared rank by rank.

Launchers can prefix every line with the rank that printed it: `[rank0]:` (PyTorch,
torchrun's `--log-line-prefix-template '[rank${rank}]:'`), `[default0]:` (torchrun's
`--tee`), `0: ` (Slurm's `srun --label`). The ranks' lines interleave in whatever
order the processes happen to write them, so comparing the whole stream would
call a reproducible run broken. When every line of run 1's output that the
pattern matches carries a prefix, each rank's matching lines are compared with
the same rank's in the other run, in order. The pattern is matched against a
line without its prefix.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from knobregistry.triage import streams

PREFIX = re.compile(r"^(?:\[(?:rank|default)(\d+)\]:|\s*(\d+): )")


def split(text: str) -> tuple[int | None, str]:
    """The rank a line's prefix names (None: no prefix), and the line without it."""
    match = PREFIX.match(text)
    if match is None:
        return None, text
    return int(match.group(1) or match.group(2)), text[match.end() :]


def stripped(test: Callable[[str], bool]) -> Callable[[str], bool]:
    """``test`` applied to a line without its rank prefix."""
    return lambda text: test(split(text)[1])


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranked:
    """The lines of an output a pattern matches: all of them, and rank by rank."""

    digest: bytes  # of every matching line, in order
    count: int
    by_rank: bool  # there are some, and every one carries a rank prefix
    digests: Mapping[int | None, bytes] = field(default_factory=dict)


def ranked_digests(path: Path, test: Callable[[str], bool]) -> Ranked:
    """Read ``path`` once: the digests of the lines whose text passes ``test``."""
    total = hashlib.sha256()
    per_rank: dict[int | None, hashlib._Hash] = {}
    count = prefixed = 0
    for line in streams.lines(path):
        rank, rest = split(line.text)
        if not test(rest):
            continue
        count += 1
        prefixed += rank is not None
        total.update(line.digest)
        per_rank.setdefault(rank, hashlib.sha256()).update(line.digest)
    digests = {rank: h.digest() for rank, h in per_rank.items()}
    return Ranked(
        digest=total.digest(), count=count, by_rank=count > 0 and prefixed == count, digests=digests
    )


def differing_ranks(first: Ranked, other: Ranked) -> list[int | None]:
    """The ranks whose lines differ, in order (None: the lines without a prefix)."""
    keys = sorted(set(first.digests) | set(other.digests), key=lambda r: -1 if r is None else r)
    return [rank for rank in keys if first.digests.get(rank) != other.digests.get(rank)]


def first_different_line(
    first: Path, other: Path, test: Callable[[str], bool], rank: int | None
) -> tuple[streams.Line | None, streams.Line | None] | None:
    """The first pair of ``rank``'s matching lines that differ."""
    return streams.first_different_line(_of(first, test, rank), _of(other, test, rank))


def _of(path: Path, test: Callable[[str], bool], rank: int | None) -> Iterator[streams.Line]:
    for line in streams.lines(path):
        mine, rest = split(line.text)
        if mine == rank and test(rest):
            yield line


def shown(rank: int | None) -> str:
    return f"rank {rank}" if rank is not None else "lines without a rank prefix"
