"""From what the probes observed to a gate verdict: on by default? which value turns it off?

Each read is probed with the variable unset and set to every on-like and
off-like word. The outcome compared across probes is, in order of preference:

1. the value the enclosing function returns, when it depends on the variable
   (predicate functions, wrappers, ``if raw is None: return default`` guards);
2. the first branch test that depends on the variable (``if ...: fused() else: eager()``),
   preferring tests that are not mere ``is None`` checks;
3. the outermost expression around the read whose value is known in every probe.

Polarity follows the universal convention: ``1 true yes on`` are on-like and
``0 false no off`` are off-like, so ``get(N, "1") == "0"`` is a disable test of a
feature that is on by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scanner.interpret.evaluate import NOT_SEEN, Observation
from scanner.interpret.values import EMPTY, OFF_ORDER, ON_ORDER, PAIRS, RAISED, UNKNOWN
from scanner.model import VALUE_GATE, Gate, GateKind

Probes = Sequence[tuple[str | None, Observation]]


def verdict(probes: Probes, chain: Sequence[int], *, function_scope: bool) -> Gate:
    """The gate verdict of one read from its probes (``chain``: ids from the read outward)."""
    if not all(obs.complete for _, obs in probes):
        return VALUE_GATE
    if function_scope:
        returned = _returned(probes)
        if returned is not None:
            return classify(returned)
    tested = _tested(probes)
    if tested is not None:
        return classify(tested)
    enclosing = _enclosing(probes, chain)
    if enclosing is not None:
        return classify(enclosing)
    return VALUE_GATE


def site_default(probes: Probes) -> str | None:
    """The value the read falls back to when the variable is unset, as a string."""
    for value, obs in probes:
        if value is None:
            default = obs.default
            if default is NOT_SEEN or default is None or default is UNKNOWN:
                return None
            if isinstance(default, str | bool | int | float):
                return str(default)
            return None
    return None


def classify(outputs: Mapping[str | None, object]) -> Gate:
    """Boolean, presence or value gate, from the outcome under each probed value."""
    known = {v: o for v, o in outputs.items() if o is not UNKNOWN and o is not RAISED}
    keys = {v: _key(o) for v, o in known.items()}
    if len(set(keys.values())) != 2:
        return VALUE_GATE
    on_key: tuple[str, str] | None = None
    kind = GateKind.BOOLEAN
    for on, off in PAIRS:
        if on in keys and off in keys and keys[on] != keys[off]:
            on_key = keys[on]
            break
    if on_key is None:
        # No on/off word makes a difference: a presence test, if every set value agrees.
        set_keys = {k for v, k in keys.items() if v is not None and v != EMPTY}
        if None not in keys or len(set_keys) != 1 or keys[None] in set_keys:
            return VALUE_GATE
        on_key, kind = set_keys.pop(), GateKind.PRESENCE
    default_on = keys[None] == on_key if None in keys else None
    on_values = tuple(v for v in ON_ORDER if v in keys and keys[v] == on_key)
    off_values = tuple(v for v in OFF_ORDER if v in keys and keys[v] != on_key)
    return Gate(
        kind=kind,
        default_on=default_on,
        off_value=off_values[0] if off_values else None,
        on_value=on_values[0] if on_values else None,
        off_values=off_values,
        on_values=on_values,
    )


def _key(value: object) -> tuple[str, str]:
    return (type(value).__name__, repr(value))


def _returned(probes: Probes) -> dict[str | None, object] | None:
    outputs: dict[str | None, object] = {}
    tainted = False
    for value, obs in probes:
        if obs.flow.kind == "raise":
            outputs[value] = RAISED
            continue
        if obs.flow.kind == "next":  # fell off the end: returns None
            outputs[value] = None
            continue
        if obs.flow.kind != "return" or obs.flow.value is None:
            return None
        result = obs.flow.value
        if not result.known:
            return None
        tainted = tainted or result.env
        outputs[value] = result.value
    return outputs if tainted else None


def _tested(probes: Probes) -> dict[str | None, object] | None:
    order: list[int] = []
    none_checks: set[int] = set()
    for _, obs in probes:
        for node_id, _value, is_none_check in obs.tests:
            if node_id not in order:
                order.append(node_id)
            if is_none_check:
                none_checks.add(node_id)
    preferred = [n for n in order if n not in none_checks] + [n for n in order if n in none_checks]
    for node_id in preferred:
        outputs: dict[str | None, object] = {}
        for value, obs in probes:
            first = next((t for n, t, _ in obs.tests if n == node_id), None)
            if first is not None and first.known:
                outputs[value] = first.value
            elif obs.flow.kind == "raise":
                outputs[value] = RAISED
            else:
                break
        else:
            return outputs
    return None


def _enclosing(probes: Probes, chain: Sequence[int]) -> dict[str | None, object] | None:
    for node_id in reversed(chain):
        outputs: dict[str | None, object] = {}
        for value, obs in probes:
            seen = obs.chain.get(node_id)
            if seen is None or seen.value is UNKNOWN:
                break
            outputs[value] = seen.value
        else:
            return outputs
    return None
