"""Kernels the code a value runs instead reaches only behind another kernel switch's test.

predibase/lorax a7394ba: LORAX_PUNICA_TRITON_DISABLED=1 leaves the Triton punica branch
(server/lorax_server/utils/layers.py:81-104) for ``elif has_sgmv() and can_vectorize:``
(:107), the punica_kernels CUDA extension, and else plain PyTorch (:160-180). ``has_sgmv()``
is DISABLE_SGMV's test (utils/punica.py:20-23, :42-43): that variable's own code makes it a
kernel switch, and its off value "1" never passes the test, whatever the rest of it. With both
off values, the first leaves its kernel for code that reaches none. Only a side the other
switch's off value never runs and its unset value may run is cut, and that switch's evidence
is found with no partners of its own, so no answer depends on which knob was judged first.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from scanner.languages import Language
from scanner.model import Knob, Role
from scanner.reach.nested import cut_code
from scanner.reach.sides import Branch
from scanner.roles import Evidence


@dataclass(frozen=True, slots=True)
class Partner:
    """Another kernel switch whose off value ``value`` never runs ``branch``, a side of a
    test its unset value may take."""

    name: str
    value: str
    branch: Branch

    def described(self) -> str:
        return f"{self.name}={self.value!r} (a kernel switch too) leaves {self.branch.described()}"


def partners(
    knob: Knob,
    modules: Iterable[str],
    knobs: Iterable[Knob],
    branches_of: Callable[[Knob], list[Branch]],
    evidence: Callable[[Knob], Evidence | None],
) -> list[Partner]:
    """The sides, in ``modules``, that another knob of ``knobs`` decides, whose ``evidence``
    is a kernel switch on unset, and that its off value never runs."""
    wanted = set(modules)
    found: list[Partner] = []
    for other in knobs:
        if other.name == knob.name or not any(s.language is Language.PYTHON for s in other.sites):
            continue
        sides = [b for b in branches_of(other) if b.module.rel in wanted]
        if not sides:
            continue
        shown = evidence(other)
        if (
            shown is None
            or shown.role is not Role.KERNEL
            or not shown.default_reaches
            or shown.value is None
        ):
            continue
        for side in sides:
            off, unset = side.runs(shown.value), side.runs(None)
            if off is not None and not any(off) and any(unset or ()):
                found.append(Partner(other.name, shown.value, side))
    return found


def partnered_code(
    branch: Branch, code: tuple[ast.stmt, ...], found: Sequence[Partner]
) -> tuple[tuple[ast.stmt, ...], tuple[Partner, ...]]:
    """``code`` (``branch``'s) with each ``if`` whose side a partner never runs cut to the
    other side, and the partners that cut it."""
    module = branch.module
    inside = {id(node) for statement in code for node in module.walked(statement)}
    holds: dict[int, bool] = {}
    used: list[Partner] = []
    for partner in found:
        side = partner.branch
        parent = module.parent(side.test)
        if side.module is not module or not isinstance(parent, ast.If):
            continue
        if id(parent) not in inside or id(parent) in holds:
            continue
        holds[id(parent)] = not side.holds
        used.append(partner)
    if not holds:
        return code, ()
    return cut_code(code, holds), tuple(used)
