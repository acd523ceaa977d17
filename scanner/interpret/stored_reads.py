"""A read stored for later, judged where it is used.

``_FUSED = os.environ.get("X", "1")`` at module level, or ``self.mode =
os.getenv("M")`` in a method, decides nothing where it stands: the branch comes
later, in the functions that test ``_FUSED`` or ``self.mode``. The stored value
of each probe is bound there and those functions are run, so the site is judged
by the code that really consumes it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from scanner.interpret.classify import classify
from scanner.interpret.evaluate import Observation
from scanner.interpret.frames import Frame
from scanner.interpret.gates import Probes, dispatches, tested_outcomes
from scanner.interpret.module import ParsedModule
from scanner.interpret.objects import ClassModel, Instance
from scanner.interpret.probe import Probe
from scanner.interpret.uses import attribute_matcher, name_matcher, used_beyond_tests
from scanner.interpret.values import UNKNOWN, V
from scanner.model import VALUE_GATE, Gate, GateKind, unknown_gate
from scanner.syntax.events import Binding, Event
from scanner.syntax.index import WrapperIndex
from scanner.syntax.scopes import body_statements, param_list

MAX_CONSUMERS = 4
_SCALARS = (str, bool, int, float, type(None))
_CONDITIONS = (cst.Comparison, cst.BooleanOperation)


def follow_store(
    parsed: ParsedModule,
    event: Event,
    knob: str,
    index: WrapperIndex,
    probes: Probes,
    named: Sequence[str],
) -> Gate | None:
    """The verdict of a stored read from the functions that use the stored value; None
    when it is not stored for later, or nothing in the module uses it."""
    binding = event.binding
    if binding is None or binding.value is None or binding.store not in ("global", "attr"):
        return None
    if isinstance(binding.value, _CONDITIONS) or (
        isinstance(binding.value, cst.UnaryOperation)
        and isinstance(binding.value.operator, cst.Not)
    ):
        return None  # a decision already: what the site's own expression says (see narrow)
    if binding.store == "global" and event.unit.scope is not None:
        return None
    stored: dict[str | None, V] = {}
    for value, obs in probes:
        seen = obs.chain.get(id(binding.value))
        if seen is None or not isinstance(seen.value, _SCALARS):
            return None  # not stored, or stored inside a table (its users take it out)
        stored[value] = V(value=seen.value, env=True, site=True)
    if binding.name in parsed.unfollowed:
        return unknown_gate(f"stored in {binding.name!r}, whose uses are too much code to follow")
    consumers = list(_consumers(parsed, event, binding.name, binding.store))[:MAX_CONSUMERS]
    if not consumers:
        return None
    verdicts: list[Gate] = []
    guarded = False  # a consumer tests the stored value only to use it (``assert X; run(X)``)
    for consumer, method_class in consumers:
        runs = [
            (value, _run(parsed, index, consumer, method_class, binding, stored[value]))
            for value, _ in probes
        ]
        if dispatches([obs for _, obs in runs]):
            return VALUE_GATE  # ``if _be == "triton": ... if _be == "torch": ...``: a choice
        outputs = _outcomes(runs)
        gate = classify(outputs, named) if outputs is not None else None
        if gate is not None and gate.kind is GateKind.PRESENCE and _uses(consumer, binding):
            guarded = True
        elif gate is not None and gate.kind is not GateKind.VALUE:
            verdicts.append(gate)
    if guarded and all(g.kind is GateKind.PRESENCE for g in verdicts):
        return VALUE_GATE
    if not verdicts:
        where = ", ".join(_name(f) for f, _ in consumers)
        return unknown_gate(f"stored in {binding.name!r} and used in {where}, not judged there")
    if len({g.default_on for g in verdicts}) > 1:
        # ``_KILLED = _X in ("0", "off")`` and ``_FORCED = _X in ("1", "on")``: one use on
        # unset, another off: the value picks among more than two behaviours, a choice
        return VALUE_GATE
    return verdicts[0]


def _consumers(
    parsed: ParsedModule, event: Event, name: str, store: str
) -> Iterator[tuple[cst.CSTNode, str | None]]:
    """Module-level statements and functions of the module that use the stored name
    (``name`` or ``self.name``)."""
    own = (event.unit.scope, *event.unit.statements)
    for consumer, method_class in parsed.users(name, store):
        if consumer in own:
            continue
        if store == "attr" and method_class != event.unit.method_class:
            continue
        yield consumer, method_class


def _run(
    parsed: ParsedModule,
    index: WrapperIndex,
    consumer: cst.CSTNode,
    method_class: str | None,
    binding: Binding,
    value: V,
) -> Observation:
    overrides = {binding.name: value} if binding.store == "global" else {}
    computed = _assigned_value(consumer)
    chain = frozenset({id(computed)}) if computed is not None else frozenset()
    evaluator = parsed.evaluator(index, Probe(overrides=overrides, chain=chain))
    if not isinstance(consumer, cst.FunctionDef):
        return evaluator.run([consumer], Frame(parsed.symbols, {}))
    function = consumer
    frame = Frame(
        parsed.symbols,
        {},
        scope_names=parsed.bindings(function).assigned,
        method_class=method_class,
    )
    params = param_list(function.params)
    for param in params:
        frame.assign(param.name.value, V(value=UNKNOWN))
    if binding.store == "attr" and params:
        model = ClassModel(method_class or "", {}, parsed.symbols)
        frame.assign(params[0].name.value, V(value=Instance(model, {binding.name: value})))
    return evaluator.run(body_statements(function.body), frame)


def _uses(consumer: cst.CSTNode, binding: Binding) -> bool:
    """Whether a consumer uses the stored value for more than testing it."""
    root = consumer.body if isinstance(consumer, cst.FunctionDef) else consumer
    name = binding.name
    return used_beyond_tests(
        root, attribute_matcher(name) if binding.store == "attr" else name_matcher(name)
    )


def _outcomes(runs: Probes) -> dict[str | None, object] | None:
    """What a consumer decided with the value, from one source known in every run: its
    first test on it, the value it computed from it (a module-level ``_ON = _X in
    TRUE_VALUES``), its first comparison of it (``x = _X in TRUE and available()``), or
    what it returned."""
    tested = tested_outcomes(runs)
    if tested is not None:
        return tested
    for source in (_computed, _compared, _returned_value):
        outputs = {value: source(obs) for value, obs in runs}
        if all(o is not None for o in outputs.values()):
            return outputs
    return None


def _computed(obs: Observation) -> object | None:
    found = [v for v in obs.chain.values() if v.env and v.known]
    return found[0].value if found else None


def _compared(obs: Observation) -> object | None:
    return obs.comparisons[0].value if obs.comparisons else None


def _returned_value(obs: Observation) -> object | None:
    flow = obs.flow
    if flow.kind == "return" and flow.value is not None and flow.value.env and flow.value.known:
        return flow.value.value
    return None


def _assigned_value(consumer: cst.CSTNode) -> cst.BaseExpression | None:
    """The value a module-level ``name = value`` consumer computes."""
    if isinstance(consumer, cst.SimpleStatementLine) and len(consumer.body) == 1:
        small = consumer.body[0]
        if isinstance(small, cst.Assign | cst.AnnAssign):
            return small.value
    return None


def _name(consumer: cst.CSTNode) -> str:
    if isinstance(consumer, cst.FunctionDef):
        return f"{consumer.name.value}()"
    return "a module-level statement"
