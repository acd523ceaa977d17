"""Probe runs shared by the set values a run cannot tell apart.

A run sees the value it probes only where it reads the variable (``Evaluator.read``).
When every read of a set value in a run is an operand of one comparison, as it is
(``get(N) == "1"``) or through a pure string method (``get(N, "").lower() in ("1",
"true")``), the value goes nowhere else: the comparison's outcome is all the run takes
from it. Another set value whose every such comparison comes out the same runs the same
statements to the same outcomes, and differs only where the run kept the read's own value
(``Observation.chain``). Its run is this one with that value put in.

The run must also start from the same module state: the caches its probes share
(``ParsedModule.shared``, where a run may keep what later runs reuse) unchanged since.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import libcst as cst

from scanner.interpret import operations as ops
from scanner.interpret.values import V

if TYPE_CHECKING:
    from scanner.interpret.evaluate import Observation

# str methods of no argument that give a str from a str alone.
PURE_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "casefold"})


@dataclass(frozen=True, slots=True)
class Compared:
    """One comparison of a read's value: ``read`` (or ``read.method()``) ``op`` ``other``."""

    op: cst.BaseCompOp
    read_left: bool
    other: object
    result: object
    method: str | None
    read: V  # what the read gave
    operand: V  # what the comparison was given (the read's value, or its method's)


@dataclass(slots=True)
class ReadLog:
    """What a run did with the set values it read of the variable under study."""

    count: int = 0  # reads of a set value (a typed accessor's among them)
    last: tuple[int, V] | None = None  # the node of the last plain read, and what it gave
    compared: list[Compared] = field(default_factory=list)

    def read(self, node: cst.CSTNode | None, value: V) -> None:
        """A read of a set value (``node`` None: one whose value is not the raw string)."""
        self.count += 1
        self.last = (id(node), value) if node is not None else None

    def operand(self, node: cst.BaseExpression, value: V, before: int) -> tuple[str | None, V]:
        """Whether ``value``, the operand ``node`` of a comparison, is one read's value
        (or a pure method's of it), read while it was evaluated: the method and the read's
        value; else ``(None, value)`` with ``value`` not a read."""
        last = self.last
        if self.count != before + 1 or last is None:
            return None, _NOT_READ
        at, read = last
        if at == id(node) and value is read:
            return None, read
        method = _pure_method(node)
        if method is None or at != id(method[0]) or not isinstance(read.value, str):
            return None, _NOT_READ
        if value.value != ops.str_method(read.value, method[1], ()):
            return None, _NOT_READ
        return method[1], read

    def comparison(
        self,
        op: cst.BaseCompOp,
        sides: tuple[tuple[str | None, V], tuple[str | None, V]],
        values: tuple[V, V],
        result: object,
    ) -> None:
        """One comparison, of which one side may be a read (see ``operand``)."""
        (left_method, left_read), (right_method, right_read) = sides
        if (left_read is _NOT_READ) == (right_read is _NOT_READ):
            return  # no read, or two (which this does not follow)
        read_left = left_read is not _NOT_READ
        read, method = (left_read, left_method) if read_left else (right_read, right_method)
        operand, other = values if read_left else (values[1], values[0])
        self.compared.append(Compared(op, read_left, other.value, result, method, read, operand))

    @property
    def blind(self) -> bool:
        """Whether every set value read was only compared."""
        return self.count == len(self.compared)


_NOT_READ = V(value=None)


def _pure_method(node: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """``X.lower()`` (a method of PURE_METHODS, no argument): X and the method's name."""
    if not isinstance(node, cst.Call) or node.args:
        return None
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in PURE_METHODS:
        return None
    return func.value, func.attr.value


@dataclass(frozen=True, slots=True)
class _Template:
    observation: Observation
    compared: tuple[Compared, ...]


class SharedRuns:
    """The runs of one site's probes, one per set of values the code cannot tell apart.

    ``run(value)`` runs the site's code with ``value`` and gives what it saw and its
    ``ReadLog``; ``state()`` is the size of the module's shared caches (only ever added to).
    """

    def __init__(
        self,
        run: Callable[[str | None], tuple[Observation, ReadLog]],
        state: Callable[[], int],
    ) -> None:
        self._run = run
        self._state = state
        self._templates: list[_Template] = []
        self._at = -1  # the caches' size when the templates were taken

    def __call__(self, value: str | None) -> Observation:
        if value is not None and self._state() == self._at:
            for template in self._templates:
                found = _answer(template, value)
                if found is not None:
                    return found
        before = self._state()
        observation, log = self._run(value)
        after = self._state()
        if after != self._at:
            self._templates = []  # later runs start from other caches
            self._at = after
        if value is not None and log.blind and before == after:
            self._templates.append(_Template(observation, tuple(log.compared)))
        return observation


def _answer(template: _Template, value: str) -> Observation | None:
    """The run of ``value`` from ``template``'s, if every comparison comes out the same."""
    swapped: dict[int, V] = {}
    for compared in template.compared:
        given = value if compared.method is None else ops.str_method(value, compared.method, ())
        pair = (given, compared.other) if compared.read_left else (compared.other, given)
        result = ops.compare(compared.op, *pair)
        if type(result) is not type(compared.result) or result != compared.result:
            return None
        swapped[id(compared.read)] = replace(compared.read, value=value)
        if compared.method is not None:
            swapped[id(compared.operand)] = replace(compared.operand, value=given)
    seen = template.observation
    return seen.copy({node: swapped.get(id(v), v) for node, v in seen.chain.items()})
