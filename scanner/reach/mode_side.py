"""The side of a kernel choice the framework's own deterministic mode takes.

Where each value of a gate reaches a kernel of its own, the code does not say which is safe
(``scanner.reach.evidence``), unless the test that decides the side unset takes also reads
another variable whose code makes it a deterministic mode, and that mode's value sends the
test away from that side too (vLLM's ``if xpu_sampler_supported() and not
envs.VLLM_BATCH_INVARIANT:``, vllm/v1/sample/ops/topk_topp_sampler.py:262): the framework
takes the other side itself when it is asked to be deterministic, so a bitwise run takes it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from scanner.model import Knob, Role
from scanner.reach.sides import Branch
from scanner.roles import Evidence
from scanner.source.ast_walk import walk


@dataclass(frozen=True, slots=True)
class ModeSide:
    """A deterministic mode that leaves ``branch`` at the same test: the mode's knob, its
    value and where its test is."""

    branch: Branch
    mode: Knob
    value: str


def mode_side(
    knob: Knob,
    lost: Sequence[Branch],
    knobs: dict[str, Knob],
    evidence: Callable[[Knob], Evidence | None],
    branches_of: Callable[[Knob], list[Branch]],
) -> ModeSide | None:
    """Of ``lost`` (the branches unset runs and the value does not), the first whose test
    reads another knob of ``knobs`` whose ``evidence`` is a deterministic mode, whose own
    branch at that test never runs under the mode's value: None where there is none."""
    for branch in lost:
        for name in sorted(_names_in(branch.test)):
            other = knobs.get(name)
            if other is None or name == knob.name:
                continue
            shown = evidence(other)
            if shown is None or shown.role is not Role.DETERMINISM or shown.value is None:
                continue
            for side in branches_of(other):
                if side.test is not branch.test or side.holds is not branch.holds:
                    continue
                runs = side.runs(shown.value)
                if runs is not None and not any(runs):
                    return ModeSide(branch, other, shown.value)
    return None


def _names_in(test: ast.expr) -> Iterator[str]:
    """The names a test spells: attributes, names and strings (``envs.X``, ``X``, ``"X"``)."""
    for node in walk(test):
        if isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
