"""From what a gate's code does under each probed value to a verdict: switch or value.

``outputs`` maps each probed value (None for unset) to the outcome the code
reached with it. Shared by every language the scanner reads: Python gates, and
the tests and ``case`` statements of shell scripts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from scanner.conventions import EMPTY, OFF_WORDS, ON_WORDS, PAIRS
from scanner.interpret.values import RAISED, UNKNOWN, Opaque
from scanner.model import TRI_STATE, VALUE_GATE, Gate, GateKind

OFF_ORDER = (*OFF_WORDS, EMPTY, *ON_WORDS)
ON_ORDER = (*ON_WORDS, *OFF_WORDS, EMPTY)


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# A switch's verdict where what it gives unset is left to the run (not a third state the
# code decides, such as None from a table): on by default is not known.
COMPUTED_UNSET = "what it gives unset is computed at run time: on by default is not known"


def classify(outputs: Mapping[str | None, object], named: Sequence[str] = ()) -> Gate:
    """Switch (boolean or presence) or value, from the outcome under each probed value."""
    known = {
        v: o
        for v, o in outputs.items()
        if o is not UNKNOWN and o is not RAISED and not is_opaque(o)
    }
    if any(is_number(o) and o not in (0, 1) for o in known.values()):
        return VALUE_GATE  # a number (a size, a count, a level), not an on/off outcome
    keys = {v: outcome_key(o) for v, o in known.items()}
    if len(set(keys.values())) == 3 and known.get(None, 0) is None:
        return _tri_state(known, named)
    if len(set(keys.values())) != 2:
        return VALUE_GATE  # a switch sorts the values into two outcomes
    on_key: tuple[str, str] | None = None
    kind = GateKind.BOOLEAN
    by_words = False
    paired: tuple[str, ...] = ()
    for on, off in PAIRS:
        if on in keys and off in keys and keys[on] != keys[off]:
            on_key, by_words, paired = keys[on], True, (off,)
            break
    if on_key is None:
        set_keys = {k for v, k in keys.items() if v is not None and v != EMPTY}
        if None in keys and len(set_keys) == 1 and keys[None] not in set_keys:
            on_key, kind = set_keys.pop(), GateKind.PRESENCE
        elif set(keys.values()) == {outcome_key(True), outcome_key(False)}:
            on_key = outcome_key(True)  # a condition on strings: on when it holds
        else:
            return VALUE_GATE
    default_on = keys[None] == on_key if None in keys else None
    on_values = _ordered((v for v in keys if v is not None and keys[v] == on_key), ON_ORDER, named)
    offs = [v for v in keys if v is not None and keys[v] != on_key]
    # The off word paired with the on word the code tests comes first: `== "true"` is
    # turned off by "false", though "0" would do.
    off_values = (
        _ordered(offs, (*paired, *OFF_ORDER), named)
        if by_words
        else _ordered(offs, named, OFF_ORDER)
    )
    reason = None
    if default_on is None and None in outputs:
        # sglang's EnvBool(_default_hip): the value unset is computed when the code runs.
        reason = COMPUTED_UNSET
    elif not by_words and kind is GateKind.BOOLEAN and off_values and off_values[0] not in named:
        kept = [v for v in named if v in on_values]
        if kept:
            listed = ", ".join(repr(v) for v in kept)
            reason = f"off value {off_values[0]!r}: any value other than {listed} turns it off"
    return Gate(
        kind=kind,
        default_on=default_on,
        off_value=off_values[0] if off_values else None,
        on_value=on_values[0] if on_values else None,
        off_values=off_values,
        on_values=on_values,
        reason=reason,
    )


def _tri_state(known: Mapping[str | None, object], named: Sequence[str]) -> Gate:
    """Unset gives None and the code decides (``getenv_bool(N, None)``, ``{"1": True,
    "0": False}.get(...)``): a switch whose on and off values force it either way."""
    forced = {v: o for v, o in known.items() if o is not None}
    gate = classify(forced, named)
    if gate.kind is not GateKind.BOOLEAN:
        return VALUE_GATE
    return replace(gate, default_on=None, reason=TRI_STATE)


def _ordered(
    values: Iterable[str | None], first: Sequence[str], then: Sequence[str]
) -> tuple[str, ...]:
    """``values`` in the order of ``first``, then of ``then``, then the rest sorted."""
    chosen = {v for v in values if v is not None}
    order = list(dict.fromkeys(v for v in (*first, *then) if v in chosen))
    return (*order, *sorted(chosen.difference(order)))


def outcome_key(value: object) -> tuple[str, str]:
    return (type(value).__name__, repr(value))


def is_opaque(value: object) -> bool:
    return isinstance(value, Opaque)
