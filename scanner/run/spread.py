"""The code's evidence for many knobs, judged on every core.

Following a knob's gates to what they reach takes a tenth of a cold scan and more, once
every file is analysed and the knobs are known. Where there are enough knobs to judge, and
the platform forks, worker processes are forked from the scan at that point: each inherits
the tree, the reach and the knobs as they are (nothing but knob numbers and the results
cross between processes), and judges a share of the knobs. A knob's evidence depends on
the tree and the knob alone, so it is the same in whichever process it is judged; the
memos one process keeps from knob to knob only save it work.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from scanner.model import Knob
from scanner.reach.modules import Tree
from scanner.roles import CodeEvidence, Evidence
from scanner.run.proposals import Judged, judge, mark

SPREAD_FROM = 32  # fewer knobs to judge than this are judged in this process
BATCHES_PER_JOB = 8  # the knobs are handed out in this many batches per worker


@dataclass(frozen=True, slots=True)
class _Shared:
    """What the forked workers inherit: the evidence, its tree, the knobs to judge, and
    whether each knob's reads are recorded (to keep its evidence in the cache)."""

    code: CodeEvidence
    tree: Tree
    knobs: Sequence[Knob]
    record: bool


_SHARED: _Shared | None = None


def judged(
    code: CodeEvidence, tree: Tree, knobs: Sequence[Knob], jobs: int, *, record: bool
) -> dict[str, Judged]:
    """The evidence of each of ``knobs`` by name, judged by ``jobs`` forked workers (with
    what its walks read when ``record``); empty where there are too few knobs, one job, or
    no ``fork``: then the caller judges each knob as it goes."""
    if jobs <= 1 or len(knobs) < SPREAD_FROM:
        return {}
    if "fork" not in multiprocessing.get_all_start_methods():
        return {}
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _SHARED
    _SHARED = _Shared(code, tree, knobs, record)
    found: dict[str, Judged] = {}
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(min(jobs, len(knobs)), mp_context=context) as pool:
            for batch in pool.map(_judge, _batches(knobs, jobs)):
                found.update(batch)
    except BrokenProcessPool:
        pass  # a worker died: what it was judging is judged in this process as it goes
    finally:
        _SHARED = None
    return found


class Ready:
    """``code``'s evidence, taken from ``ready`` (judged in the workers) where it is."""

    def __init__(self, code: CodeEvidence, ready: dict[str, Judged]) -> None:
        self.code = code
        self.ready = ready

    def evidence(self, knob: Knob) -> Evidence | None:
        """The knob's evidence, judged already or now."""
        found = self.ready.get(knob.name)
        if found is not None and found.mark == mark(knob):
            return found.evidence
        return self.code.evidence(knob)


def _batches(knobs: Sequence[Knob], jobs: int) -> Iterator[list[int]]:
    """The knobs' numbers in runs, by the file of their first site (knobs read in the same
    files walk the same code, which a worker's memos then find once)."""
    order = sorted(range(len(knobs)), key=lambda n: (_home(knobs[n]), n))
    size = max(1, -(-len(order) // (jobs * BATCHES_PER_JOB)))
    for start in range(0, len(order), size):
        yield order[start : start + size]


def _home(knob: Knob) -> str:
    return knob.sites[0].path if knob.sites else ""


def _judge(numbers: Sequence[int]) -> list[tuple[str, Judged]]:
    """In a worker: the evidence of the knobs numbered ``numbers``."""
    shared = _SHARED
    assert shared is not None, "judged only in workers forked by judged()"
    out = []
    for number in numbers:
        knob = shared.knobs[number]
        try:
            if shared.record:
                out.append((knob.name, judge(shared.code, shared.tree, knob)))
            else:
                out.append((knob.name, Judged(mark(knob), shared.code.evidence(knob), (), ())))
        except Exception:  # judged again in the scan's process, which reports the fault
            continue
    return out
