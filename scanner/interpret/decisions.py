"""Where the code decides with a site's value: what each probe made of it, and where.

The probes of a site (``scanner.interpret.gates``) ran its scope with the variable unset
and set to each candidate value. Besides the verdict, they say where the code decides
with the value: the branch tests it takes part in, what the function returns, what is
stored in a module name or an attribute. Each becomes a ``Decision`` with the outcome
under every probe, placed so that ``scanner.reach`` can find the same node with ``ast``
and follow the branches to what they run.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

import libcst as cst

from scanner.interpret.evaluate import Observation
from scanner.interpret.module import ParsedModule
from scanner.interpret.values import V
from scanner.model import Decision, DecisionKind, Outcome
from scanner.syntax.events import Event
from scanner.syntax.walk import nodes

Probes = Sequence[tuple[str | None, Observation]]
MAX_TESTS = 8  # branch tests recorded per site
_PLAIN = (str, bool, int, float, type(None))
_STORES = ("global", "local", "attr", "other")


def decisions(parsed: ParsedModule, event: Event, probes: Probes) -> tuple[Decision, ...]:
    """The decisions the site's value takes part in, in the order the probes met them."""
    found: list[Decision] = []
    if event.chain:
        read = _outcomes(probes, lambda obs: _chained(obs, event.chain[0]))
        if read is not None:
            found.append(_at_site(DecisionKind.READ, event, read))
    scope = event.unit.scope
    for node_id in _test_order(probes)[:MAX_TESTS]:
        outcomes = _outcomes(probes, lambda obs, n=node_id: _first_test(obs, n))
        if outcomes is None:
            continue
        if node_id in event.target:
            found.append(_at_site(DecisionKind.TEST, event, outcomes, holds_read=True))
            continue
        if not isinstance(scope, cst.FunctionDef):
            continue  # a test of module-level code names no function to find it in
        node = parsed.node_in(scope, node_id)
        text = _test_text(parsed, node) if node is not None else None
        if text is not None:
            found.append(
                Decision(
                    kind=DecisionKind.TEST,
                    line=parsed.def_line(scope),
                    column=0,
                    outcomes=outcomes,
                    name=text,
                )
            )
    if isinstance(event.unit.scope, cst.FunctionDef):
        returned = _outcomes(probes, _returned)
        if returned is not None:
            found.append(_at_site(DecisionKind.RETURN, event, returned, name=event.function))
    elif isinstance(event.unit.scope, cst.Lambda):
        key = _registry_keys(parsed).get(id(event.unit.scope))
        returned = _outcomes(probes, _returned) if key is not None else None
        if returned is not None:
            # vLLM's envs.py: ``"VLLM_X": lambda: ...`` in a module-level dict, which the
            # module's __getattr__ calls: ``envs.VLLM_X`` is what the lambda returns.
            found.append(_at_site(DecisionKind.STORE, event, returned, name=key, store="global"))
    binding = event.binding
    if binding is not None and binding.store in _STORES and event.chain:
        outermost = event.chain[-1]
        stored = _outcomes(probes, lambda obs: _chained(obs, outermost))
        if stored is not None:
            found.append(
                _at_site(DecisionKind.STORE, event, stored, name=binding.name, store=binding.store)
            )
    return tuple(found)


def _registry_keys(parsed: ParsedModule) -> Mapping[int, str]:
    """The lambdas that are values of a module-level dict, by id, with their string key."""
    if parsed.registry_keys is not None:
        return parsed.registry_keys
    found: dict[int, str] = {}
    for statement in parsed.tree.body:
        for node in nodes(statement):
            if not isinstance(node, cst.Dict):
                continue
            for element in node.elements:
                if (
                    isinstance(element, cst.DictElement)
                    and isinstance(element.key, cst.SimpleString)
                    and isinstance(element.value, cst.Lambda)
                ):
                    key = element.key.evaluated_value
                    if isinstance(key, str) and key.isidentifier():
                        found[id(element.value)] = key
    parsed.registry_keys = found
    return found


def _at_site(
    kind: DecisionKind,
    event: Event,
    outcomes: tuple[tuple[str | None, Outcome], ...],
    *,
    holds_read: bool = False,
    name: str | None = None,
    store: str | None = None,
) -> Decision:
    return Decision(
        kind=kind,
        line=event.line,
        column=event.column,
        outcomes=outcomes,
        holds_read=holds_read,
        name=name,
        store=store,
    )


_MISSING = object()


def _outcomes(probes: Probes, of: object) -> tuple[tuple[str | None, Outcome], ...] | None:
    """Each probe's plain outcome, when at least two probes gave different ones."""
    assert callable(of)
    found: list[tuple[str | None, Outcome]] = []
    for value, obs in probes:
        outcome = of(obs)
        if outcome is _MISSING or not isinstance(outcome, _PLAIN):
            continue
        found.append((value, outcome))
    if len({(type(o), o) for _, o in found}) < 2:
        return None
    return tuple(found)


def _first_test(obs: Observation, node_id: int) -> object:
    test = next((t for n, t, _ in obs.tests if n == node_id), None)
    return test.value if test is not None and test.known else _MISSING


def _returned(obs: Observation) -> object:
    flow = obs.flow
    if flow.kind == "next":
        return None
    if flow.kind != "return" or flow.value is None or not flow.value.known:
        return _MISSING
    return _plain(flow.value) if flow.value.env else _MISSING


def _chained(obs: Observation, node_id: int) -> object:
    seen = obs.chain.get(node_id)
    return _plain(seen) if seen is not None and seen.known else _MISSING


def _plain(value: V) -> object:
    return value.value if isinstance(value.value, _PLAIN) else _MISSING


def _test_order(probes: Probes) -> list[int]:
    """The branch tests the site's own value takes part in, in the order first met."""
    belongs = {node_id for _, obs in probes for node_id in obs.site_tests}
    order: list[int] = []
    for _, obs in probes:
        for node_id, _value, _none_check in obs.tests:
            if node_id in belongs and node_id not in order:
                order.append(node_id)
    return order


def _test_text(parsed: ParsedModule, node: cst.CSTNode) -> str | None:
    """The test as ``ast.unparse`` writes it, which ``scanner.reach`` finds it by (the
    same text for the same code, whatever its spacing, quotes and parentheses)."""
    code = parsed.tree.code_for_node(node)
    try:
        return ast.unparse(ast.parse(code.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return None
