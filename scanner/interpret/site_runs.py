"""The probe runs of one site, resumed after the statements before its read.

A run sees the value it probes only where it reads the variable (``Evaluator.asked``).
The statements of the site's scope before the one that holds the site, where they do not
read it, run alike for every value: they are run once, and each later probe goes on from
a copy of where they left the run. Where the statement that holds the site is a ``with``
(a function's body under ``with self._lock:``), the run goes into it, and into the next
``with`` in, and pauses before the statement of its body that holds the site. The copy
is exact when the scope's locals hold only values nothing changes in place (no object,
which a later statement could change through another name; the interpreter builds a new
list or dict for every change) or closures defined in the scope itself (the copy's own,
as a run from the top would define them in its frame), and the module's shared caches
are as they were when it was taken (a run started from other caches could take other
steps).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeGuard

import libcst as cst

from scanner.interpret.evaluate import Evaluator, Level, Observation
from scanner.interpret.frames import Frame
from scanner.interpret.module import ParsedModule, flow_frame
from scanner.interpret.objects import Closure
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
        self._path = _path(self._statements, event.target)
        # Nothing before the site to run once: run from the top each time.
        self._before = len(self._path) > 1 or self._path[0][1] > 0
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
        path = self._path
        inner = len(path) - 1
        paused = self._paused
        shared = len(self._parsed.shared)
        if paused is not None and paused.shared == shared:
            frame = _resumed(evaluator, paused)
            return evaluator.leave(path, frame, inner), evaluator.reads
        frame = flow_frame(self._parsed, event, evaluator)
        if not self._before:
            return evaluator.leave(path, frame, 0), evaluator.reads
        statements, stop = path[0]
        seen = evaluator.run(statements, frame, 0, stop)
        if seen.flow.kind != "next" or not seen.complete:
            return seen, evaluator.reads  # the run ended before the site's statement
        entered = evaluator.enter(path, frame)
        if entered is None:
            return seen, evaluator.reads  # out of steps before the site's statement
        depth, flow = entered
        if (
            flow is None
            and evaluator.asked == 0
            and len(self._parsed.shared) == shared
            and _fixed(frame)
        ):
            self._paused = _Paused(
                _copy(frame),
                seen.copy(),
                frozenset(evaluator.factories),
                dict(evaluator.operands),
                evaluator.steps,
                shared,
            )
        return evaluator.leave(path, frame, depth, flow), evaluator.reads


def _path(statements: tuple[cst.CSTNode, ...], target: frozenset[int]) -> list[Level]:
    """Where a run pauses: the statement of the scope that holds the site, and inside
    each ``with`` that holds it (in its body, not its items), the statement that does."""
    holds = (at for at, s in enumerate(statements) if id(s) in target)
    at = next(holds, None)
    path: list[Level] = [(statements, at or 0)]  # 0: no statement holds the site
    node = statements[at] if at is not None else None
    while isinstance(node, cst.With):
        body = tuple(body_statements(node.body))
        at = next((i for i, s in enumerate(body) if id(s) in target), None)
        if at is None:
            break  # the site is in the ``with``'s items
        path.append((body, at))
        node = body[at]
    return path


def _resumed(evaluator: Evaluator, paused: _Paused) -> Frame:
    """Put ``paused``'s state into ``evaluator`` (fresh): the frame to go on in."""
    evaluator.seen = paused.seen.copy()
    evaluator.factories = set(paused.factories)
    evaluator.operands = dict(paused.operands)
    evaluator.steps = paused.steps
    return _copy(paused.frame)


def _copy(frame: Frame) -> Frame:
    """A copy of ``frame``, where the closures defined in it are defined again."""
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
    again: dict[int, Closure] = {}  # one new closure for each, under every name it has
    for name, v in frame.locals.items():
        closure = v.value
        if _own(closure, frame):
            if id(closure) not in again:
                again[id(closure)] = Closure(
                    closure.node, copied, closure.symbols, closure.qualname, closure.method_class
                )
            copied.locals[name] = replace(v, value=again[id(closure)])
    return copied


def _fixed(frame: Frame) -> bool:
    """Whether a copy of ``frame`` is a run's state: no enclosing frame, and locals that
    hold only values no statement can change in place, or closures defined in it."""
    return (
        frame.parent is None
        and frame.owner is None
        and all(_fixed_value(v.value) or _own(v.value, frame) for v in frame.locals.values())
    )


def _own(value: object, frame: Frame) -> TypeGuard[Closure]:
    """Whether ``value`` is a closure defined in ``frame``."""
    return isinstance(value, Closure) and value.frame is frame


def _fixed_value(value: object) -> bool:
    if value is UNKNOWN or value is RAISED or isinstance(value, _FIXED):
        return True
    if isinstance(value, tuple | frozenset):
        return all(_fixed_value(item) for item in value)
    if isinstance(value, dict):
        return all(_fixed_value(k) and _fixed_value(v) for k, v in value.items())
    return False
