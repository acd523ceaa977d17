"""The analysis of one file: a pure function of its text, the options and the wrapper table."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from scanner.interpret.evaluate import Evaluator, Observation
from scanner.interpret.frames import body_statements
from scanner.interpret.gates import Probes, site_default, verdict
from scanner.interpret.module import ParsedModule, flow_frame
from scanner.interpret.values import CANDIDATES, V
from scanner.model import DynamicRead, FileResult, Gate, ReadKind, Site, Write, WriteKind
from scanner.patterns import dynamic_matches, matches
from scanner.syntax.events import Event
from scanner.syntax.index import WrapperIndex


def resolve_names(parsed: ParsedModule, event: Event, index: WrapperIndex) -> list[V]:
    """The variable names an event reads, as values (known strings when resolved)."""
    frame = parsed.resolver(event, index)
    evaluator = Evaluator(index, bindings_cache=parsed.bindings_cache)
    if event.wrapper is not None:
        assert isinstance(event.node, cst.Call)
        evaluator.call_wrapper(event.wrapper, event.node, frame, bound=event.bound)
        names = evaluator.seen.names
        return names or [V(None)]
    if event.name is None:
        return [V(None)]
    return [evaluator.evaluate(event.name, frame)]


def analyze(parsed: ParsedModule, index: WrapperIndex, match: Sequence[str]) -> FileResult:
    """Sites, dynamic reads and writes of one parsed module."""
    sites: list[Site] = []
    dynamic: list[DynamicRead] = []
    writes: list[Write] = []
    gates: dict[tuple[int, str], tuple[Gate, str | None]] = {}
    for event in parsed.events(index):
        names = resolve_names(parsed, event, index)
        resolved = sorted({n.value for n in names if n.known and isinstance(n.value, str)})
        unresolved = [n for n in names if not (n.known and isinstance(n.value, str))]
        if isinstance(event.kind, WriteKind):
            targets: list[str | None] = [*resolved] or [None]
            for target in targets:
                if target is None or matches(target, match):
                    writes.append(_write(parsed, event, target))
            continue
        if unresolved and not resolved:
            if any(n.params for n in unresolved) and wrapper_scope(event) is not None:
                continue  # a wrapper's own read: reported at its call sites
            text = parsed.tree.code_for_node(event.node)
            if dynamic_matches(text, match):
                dynamic.append(
                    DynamicRead(parsed.rel, event.line, event.column, text, event.function)
                )
            continue
        for name in resolved:
            if not matches(name, match):
                continue
            key = (id(event.unit.scope or event.unit.statements[0]), name)
            if key not in gates:
                gates[key] = _judge(parsed, event, name, index)
            gate, default = gates[key]
            sites.append(
                Site(
                    name=name,
                    path=parsed.rel,
                    line=event.line,
                    column=event.column,
                    kind=ReadKind(event.kind),
                    default=default,
                    gate=gate,
                    function=event.function,
                    via=event.wrapper.qualname if event.wrapper is not None else None,
                )
            )
    return FileResult(tuple(sites), tuple(dynamic), tuple(writes))


def _judge(
    parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex
) -> tuple[Gate, str | None]:
    probes: Probes = [(value, _probe(parsed, event, knob, value, index)) for value in CANDIDATES]
    return (
        verdict(probes, event.chain, function_scope=event.unit.scope is not None),
        site_default(probes),
    )


def _probe(
    parsed: ParsedModule, event: Event, knob: str, value: str | None, index: WrapperIndex
) -> Observation:
    evaluator = Evaluator(
        index,
        knob=knob,
        value=value,
        target=event.target,
        chain=frozenset(event.chain),
        bindings_cache=parsed.bindings_cache,
    )
    frame = flow_frame(parsed, event, evaluator)
    scope = event.unit.scope
    if isinstance(scope, cst.Lambda):
        return evaluator.run_expression(scope.body, frame)
    if isinstance(scope, cst.FunctionDef):
        return evaluator.run(body_statements(scope.body), frame)
    return evaluator.run(event.unit.statements, frame)


def wrapper_scope(event: Event) -> cst.FunctionDef | None:
    """The function around ``event`` when it can be a wrapper: one called by name from
    elsewhere (not nested in another function, not a dunder method)."""
    scope = event.unit.scope
    if not isinstance(scope, cst.FunctionDef) or "<locals>" in event.function:
        return None
    return None if scope.name.value.startswith("__") else scope


def _write(parsed: ParsedModule, event: Event, name: str | None) -> Write:
    assert isinstance(event.kind, WriteKind)
    return Write(name, parsed.rel, event.line, event.column, event.kind, event.function)
