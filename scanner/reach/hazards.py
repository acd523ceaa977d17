"""Which of two kernel choices a bitwise run takes, from what only one of them reaches.

Where each value of a gate reaches a kernel of its own, the choice is a kernel choice, and
the code says which side is safe when one side alone reaches a *hazard*, a way a kernel's
result can change from run to run or with the batch: atomics (an unordered reduction),
autotuning (a configuration chosen by timing), a compiled path or CUDA graph capture, while
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

HAZARDS = frozenset({MarkKind.ATOMIC, MarkKind.AUTOTUNE, MarkKind.COMPILE, MarkKind.GRAPH})
# What the safe side may reach of its own: Triton kernels the tree defines.
_SHOWN = frozenset({MarkKind.TRITON})


@dataclass(frozen=True, slots=True)
class Safer:
    """The side a bitwise run takes: ``first`` (the first side given) or not, and the
    hazard only the other side reaches."""

    first: bool
    hazard: Mark


def safer_side(
    first: tuple[Set[Mark], Set[Mark]], second: tuple[Set[Mark], Set[Mark]]
) -> Safer | None:
    """Of two sides, each given by the kernel marks it reaches and the other does not, and
    by every kernel it may reach, the one with no hazard where the other has one that it
    can never reach; None where the code does not say."""
    for (safe, reach), (risky, _), is_first in ((first, second, True), (second, first, False)):
        hazards = [m for m in risky if m.kind in HAZARDS and m not in reach]
        if hazards and safe and all(m.kind in _SHOWN for m in safe):
            return Safer(is_first, min(hazards, key=lambda m: (m.path, m.line, m.what)))
    return None
