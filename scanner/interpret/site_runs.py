"""The probe runs of one site, resumed after the statements before its read.

A run sees the value it probes only where it reads the variable (``Evaluator.asked``).
The statements of the site's scope before the one that holds the site, where they do not
read it, run alike for every value: they are run once, and each later probe goes on from
a copy of where they left the run. The copy is exact when the scope's locals hold only
values nothing changes in place (no object or closure, which a later statement could
change through another name; the interpreter builds a new list or dict for every change),
and the module's shared caches are as they were when
it was taken (a run started from other caches could take other steps).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from scanner.interpret.evaluate import Evaluator, Observation
from scanner.interpret.frames import Frame
from scanner.interpret.module import ParsedModule, flow_frame
from scanner.interpret.probe import Probe
from scanner.interpret.spellings import ReadLog
from scanner.interpret.values import RAISED, UNKNOWN, EnvironCopy, V
from scanner.syntax.events import Event
from scanner.syntax.index import WrapperIndex
from scanner.syntax.scopes import body_statements

# Values no statement can change in place.
_FIXED = (str, int, float, complex, bool, bytes, type(None), EnvironCopy)


@dataclass(frozen=True, slots=True)
class _Paused:
    """A run stopped before the statement that holds the site."""

    frame: Frame  # a copy, never run in
    seen: Observation
    factories: frozenset[int]
    operands: dict[int, V]
    steps: int
    shared: int  # the size of the module's shared caches (only ever added to)


class SiteRuns:
    """``runs(value)``: one run of the site's code with ``value``, what it saw and what it
    did with the value it read."""

    def __init__(self, parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex) -> None:
        self._parsed = parsed
        self._event = event
        self._knob = knob
        self._index = index
        scope = event.unit.scope
        self._statements: tuple[cst.CSTNode, ...] = (
            tuple(body_statements(scope.body))
            if isinstance(scope, cst.FunctionDef)
            else tuple(event.unit.statements)
            if scope is None
            else ()
        )
        holds = (at for at, s in enumerate(self._statements) if id(s) in event.target)
        self._stop = next(holds, 0)  # 0: nothing before the site to run once
        self._paused: _Paused | None = None

    def __call__(self, value: str | None) -> tuple[Observation, ReadLog]:
        event = self._event
        probe = Probe(
            knob=self._knob,
            value=value,
            site=id(event.node),
            site_name=event.name,
            target=event.target,
            chain=frozenset(event.chain),
        )
        evaluator = self._parsed.evaluator(self._index, probe)
        scope = event.unit.scope
        if isinstance(scope, cst.Lambda):
            frame = flow_frame(self._parsed, event, evaluator)
            return evaluator.run_expression(scope.body, frame), evaluator.reads
        statements, stop = self._statements, self._stop
        paused = self._paused
        shared = len(self._parsed.shared)
        if paused is not None and paused.shared == shared:
            frame = _resumed(evaluator, paused)
            return evaluator.run(statements, frame, stop), evaluator.reads
        frame = flow_frame(self._parsed, event, evaluator)
        if stop:
            seen = evaluator.run(statements, frame, 0, stop)
            if seen.flow.kind != "next" or not seen.complete:
                return seen, evaluator.reads  # the run ended before the site's statement
            if evaluator.asked == 0 and len(self._parsed.shared) == shared and _fixed(frame):
                self._paused = _Paused(
                    _copy(frame),
                    seen.copy(),
                    frozenset(evaluator.factories),
                    dict(evaluator.operands),
                    evaluator.steps,
                    shared,
                )
        return evaluator.run(statements, frame, stop), evaluator.reads


def _resumed(evaluator: Evaluator, paused: _Paused) -> Frame:
    """Put ``paused``'s state into ``evaluator`` (fresh): the frame to go on in."""
    evaluator.seen = paused.seen.copy()
    evaluator.factories = set(paused.factories)
    evaluator.operands = dict(paused.operands)
    evaluator.steps = paused.steps
    return _copy(paused.frame)


def _copy(frame: Frame) -> Frame:
    copied = Frame(
        frame.symbols,
        dict(frame.locals),
        scope_names=frame.scope_names,
        depth=frame.depth,
        method_class=frame.method_class,
        parent=frame.parent,
        qualname=frame.qualname,
        owner=frame.owner,
    )
    copied.control = frame.control
    copied.site_control = frame.site_control
    return copied


def _fixed(frame: Frame) -> bool:
    """Whether a copy of ``frame`` is a run's state: no enclosing frame, and locals that
    hold only values no statement can change in place."""
    return (
        frame.parent is None
        and frame.owner is None
        and all(_fixed_value(v.value) for v in frame.locals.values())
    )


def _fixed_value(value: object) -> bool:
    if value is UNKNOWN or value is RAISED or isinstance(value, _FIXED):
        return True
    if isinstance(value, tuple | frozenset):
        return all(_fixed_value(item) for item in value)
    if isinstance(value, dict):
        return all(_fixed_value(k) and _fixed_value(v) for k, v in value.items())
    return False
