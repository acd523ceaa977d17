"""The variable names an event reads or writes: through loops, choices and setter calls."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import libcst as cst

from scanner.interpret.evaluate import Evaluator
from scanner.interpret.expressions import iterable_items
from scanner.interpret.frames import Frame
from scanner.interpret.module import ParsedModule
from scanner.interpret.probe import Probe
from scanner.interpret.registries import declaration, renamed
from scanner.interpret.values import V
from scanner.syntax.events import Event
from scanner.syntax.index import SETTER, WrapperIndex
from scanner.syntax.scopes import param_list

MAX_NAME_CHOICES = 64  # names a loop over known data may give one read


def resolve_names(parsed: ParsedModule, event: Event, index: WrapperIndex) -> list[V]:
    """The variable names an event reads, as values (known strings when resolved); a
    name taken from a loop over known data gives one name per item."""
    declared = declaration(parsed, event)
    if declared is None:
        return _resolve_names(parsed, event, index)
    template, attribute = declared
    found = parsed.shared.get(("names", template))
    if found is None or found[0] is not index:
        found = (index, attribute, _resolve_names(parsed, event, index))
        parsed.shared[("names", template)] = found
    return renamed(found[2], found[1], attribute)


def _resolve_names(parsed: ParsedModule, event: Event, index: WrapperIndex) -> list[V]:
    frame = parsed.resolver(event, index)
    names = _names_in(parsed, event, index, frame)
    if all(n.known and isinstance(n.value, str) for n in names) or not event.loops:
        return names
    found: list[V] = []
    for bound in _loop_frames(parsed, event, index, frame):
        found.extend(_names_in(parsed, event, index, bound))
    if any(n.known and isinstance(n.value, str) for n in found):
        return found
    # A loop over a parameter (``for name in names``): the names come from the callers.
    evaluator = parsed.evaluator(index)
    params = frozenset(
        p for _, iterable in event.loops for p in evaluator.evaluate(iterable, frame).params
    )
    return (
        [V(value=n.value, env=n.env, params=n.params | params) for n in names] if params else names
    )


def _names_in(parsed: ParsedModule, event: Event, index: WrapperIndex, frame: Frame) -> list[V]:
    if event.field is not None and event.wrapper is not None:
        declared = dict(event.wrapper.fields).get(event.field, ())
        return [V(value=name) for name in declared] or [V(value=None)]
    evaluator = parsed.evaluator(index, Probe(explore=True))
    if event.wrapper is not None:
        assert isinstance(event.node, cst.Call)
        if event.wrapper.kind == SETTER:
            return [setter_argument(evaluator, event, frame, event.wrapper.name_param)]
        evaluator.call(
            lambda: evaluator.call_wrapper(event.wrapper, event.node, frame, bound=event.bound)  # type: ignore[arg-type]
        )
        return evaluator.seen.names or [V(value=None)]
    if event.name is None:
        return [V(value=None)]
    value = evaluator.evaluate(event.name, frame)
    if value.known:
        return [value]
    choices = [evaluator.evaluate(e, frame) for e in _alternatives(parsed, event, event.name)]
    known = [c for c in choices if c.known]
    return known if known and len(known) == len(choices) else [value]


def _alternatives(
    parsed: ParsedModule, event: Event, node: cst.BaseExpression, depth: int = 0
) -> list[cst.BaseExpression]:
    """The expressions a name may take: both branches of ``a if test else b``, also
    through a local bound once to one."""
    if depth > 4:
        return [node]
    if isinstance(node, cst.IfExp):
        return [
            *_alternatives(parsed, event, node.body, depth + 1),
            *_alternatives(parsed, event, node.orelse, depth + 1),
        ]
    scope = event.unit.scope
    if isinstance(node, cst.Name) and scope is not None:
        values = parsed.bindings(scope).values.get(node.value, ())
        if len(values) == 1 and isinstance(values[0], cst.IfExp):
            return _alternatives(parsed, event, values[0], depth + 1)
    return [node]


def _loop_frames(
    parsed: ParsedModule, event: Event, index: WrapperIndex, frame: Frame
) -> Iterator[Frame]:
    """Frames binding the targets of the loops around the event to each item of their
    known data (up to MAX_NAME_CHOICES combinations)."""
    evaluator = parsed.evaluator(index)
    choices: list[tuple[cst.BaseExpression, tuple[object, ...]]] = []
    for target, iterable in event.loops:
        items = iterable_items(evaluator.evaluate(iterable, frame))
        if items is not None:
            choices.append((target, items))
    combos = itertools.product(*(items for _, items in choices))
    for combo in itertools.islice(combos, MAX_NAME_CHOICES):
        bound = Frame(frame.symbols, {}, parent=frame, method_class=frame.method_class)
        for (target, _), item in zip(choices, combo, strict=True):
            evaluator.assign(target, V(value=item), bound)
        yield bound


def setter_argument(evaluator: Evaluator, event: Event, frame: Frame, param: str | None) -> V:
    """The argument a setter call passes for ``param``."""
    assert event.wrapper is not None and isinstance(event.node, cst.Call)
    if param is None:
        return V(value=None)
    params = [p.name.value for p in param_list(event.wrapper.function().params)]
    if event.wrapper.binds_first(event.bound):
        params = params[1:]
    for position, arg in enumerate(event.node.args):
        if arg.star:
            return V(value=None)
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == param or (
            keyword is None and position < len(params) and params[position] == param
        ):
            return evaluator.evaluate(arg.value, frame)
    return V(value=None)
