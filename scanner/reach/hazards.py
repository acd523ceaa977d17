"""Which of two kernel choices a bitwise run takes, from what only one of them reaches.

Where each value of a gate reaches a kernel of its own, the choice is a kernel choice, and
the code says which side is safe when one side alone reaches a *hazard*, a way a kernel's
result can change from run to run or with the batch: atomics (an unordered reduction),
autotuning (a configuration chosen by timing), a compiled path or CUDA graph capture, a
reduction split in a number of parts the run chooses (``scanner.reach.split_reduction``), while
every kernel of its own the other side reaches is Triton code the tree holds, read for
atomics and autotuning like every other kernel. A library's entry point or a custom op is
code the tree does not show: a side that reaches one of its own is never the safe side
(a library's kernel beside a compiled or captured path is a choice a person makes). A
hazard both sides reach says nothing.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from scanner.reach.marks import Mark, MarkKind

HAZARDS = frozenset(
    {MarkKind.ATOMIC, MarkKind.AUTOTUNE, MarkKind.COMPILE, MarkKind.GRAPH, MarkKind.SPLIT}
)
# What the safe side may reach of its own: Triton kernels the tree defines, cuTile kernels
# (``@ct.kernel``, run by ``ct.launch``) and FlyDSL kernels (``@flyc.kernel``), whose bodies
# a walk reads the same way.
_SHOWN = frozenset({MarkKind.TRITON, MarkKind.TILE, MarkKind.FLYDSL})


@dataclass(frozen=True, slots=True)
class Safer:
    """The side a bitwise run takes: ``first`` (the first side given) or not, the hazard
    only the other side reaches, and the kinds of hazard the side taken reaches of its own
    that the other side reaches of its own too (none where all it alone reaches is Triton
    code with no hazard)."""

    first: bool
    hazard: Mark
    shared: tuple[MarkKind, ...] = ()


def safer_side(
    first: tuple[Set[Mark], Set[Mark]], second: tuple[Set[Mark], Set[Mark]]
) -> Safer | None:
    """Of two sides, each given by the kernel marks it reaches and the other does not, and
    by every kernel it may reach, the one with no hazard where the other has one that it
    can never reach; None where the code does not say. A side that autotunes (or has any
    other hazard) of its own is still the safer one where the other has a hazard of that
    kind of its own too and one of a kind it never reaches at all: it adds no kind of
    hazard and leaves one."""
    for (safe, reach), (risky, _), is_first in ((first, second, True), (second, first, False)):
        if not safe:
            continue
        hazards = [m for m in risky if m.kind in HAZARDS and m not in reach]
        if hazards and all(m.kind in _SHOWN for m in safe):
            return Safer(is_first, _first(hazards))
        own = {m.kind for m in safe if m.kind not in _SHOWN}
        reached = {m.kind for m in reach}
        risky_kinds = {m.kind for m in risky}
        unknown = [m for m in risky if m.kind in HAZARDS and m.kind not in reached]
        if unknown and own <= HAZARDS & risky_kinds:
            shared = tuple(k for k in MarkKind if k in own)
            return Safer(is_first, _first(unknown), shared)
    return None


def _first(marks: list[Mark]) -> Mark:
    return min(marks, key=lambda m: (m.path, m.line, m.what))


def shown_code(marks: Set[Mark]) -> str:
    """What the kernels of ``marks`` the tree shows are, as the evidence names them:
    "Triton code", "cuTile code", "FlyDSL code", or several."""
    kinds = {m.kind for m in marks}
    named = [word for kind, word in _SHOWN_WORDS if kind in kinds]
    return f"{' and '.join(named) or 'Triton'} code"


_SHOWN_WORDS = (
    (MarkKind.TRITON, "Triton"),
    (MarkKind.TILE, "cuTile"),
    (MarkKind.FLYDSL, "FlyDSL"),
)
