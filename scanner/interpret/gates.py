"""From what the probes observed to a gate verdict: on by default? which value turns it off?

Each site is probed with the variable unset, set to every on-like and off-like
word, and set to each string the code around it compares with. The outcome
compared across probes is, in order of preference:

1. for a descriptor, what its reader returns; in a function, the value the
   function returns, when it depends on the site (predicates, wrappers,
   ``if raw is None: return default`` guards);
2. the first branch test that depends on the site (``if ...: fused() else: eager()``),
   preferring tests that are not mere ``is None`` checks;
3. the outermost expression around the read whose value is known in every probe.

A switch is judged by the universal convention where an on word and an off word
select different outcomes (``1 true yes on`` against ``0 false no off``): the on
word's outcome is "on", so ``get(N, "1") == "0"`` is on by default. Where no
such pair differs, a condition on strings (``== "fast"``, ``!= "eager"``,
``in ("DEBUG", "INFO")``) is on when it holds. A value used as a number, or handed to
a function that takes a path (``os.path.isfile``), is a value knob. What cannot be
decided is ``unknown``, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scanner.conventions import EMPTY, OFF_WORDS, ON_WORDS, name_words
from scanner.interpret.classify import classify, is_number, is_opaque, outcome_key
from scanner.interpret.evaluate import NOT_SEEN, Observation
from scanner.interpret.values import RAISED, UNKNOWN
from scanner.model import VALUE_GATE, Gate, GateKind, unknown_gate

Probes = Sequence[tuple[str | None, Observation]]
_WORDS = frozenset({*ON_WORDS, *OFF_WORDS, EMPTY})
_BOOLISH = ("bool", "true", "truthy", "flag", "enabled", "disabled", "strtobool", "is_", "yes")
# Last words of a name that holds an index or a count (X_RANK, device_id, BATCH_SIZE).
_INDEX_WORDS = frozenset({"RANK", "ID", "IDX", "INDEX", "SIZE", "COUNT", "NUM"})


def verdict(
    probes: Probes, chain: Sequence[int], *, function_scope: bool, named: Sequence[str] = ()
) -> Gate:
    """The gate verdict of one site from its probes (``chain``: ids from the read outward;
    ``named``: the strings the code around it compares with)."""
    observations = [obs for _, obs in probes]
    if not all(obs.complete for obs in observations):
        return unknown_gate("the code that uses it is too long to follow (step budget)")
    limits = [reason for obs in observations for reason in obs.limits]
    if limits:
        return unknown_gate(limits[0])
    if not any(obs.reached for obs in observations):
        return unknown_gate("the read sits in code the scanner does not run")
    if any(obs.numeric or obs.path for obs in observations):
        return VALUE_GATE
    if dispatches(observations):
        return VALUE_GATE
    required = _requirement(probes)
    if required is not None:
        return required
    counted = any(obs.counted for obs in observations)
    gate, beyond_the_read = _decided(probes, chain, function_scope, named, counted)
    if gate.kind is GateKind.PRESENCE and _passes_value(probes, chain):
        return VALUE_GATE
    if gate.kind is not GateKind.VALUE or beyond_the_read:
        return gate  # decided by what the code does with the value, not the value alone
    undecided = [d for obs in observations for d in obs.undecided]
    if undecided:
        return unknown_gate(f"it decides a branch through {undecided[0]}, which is not followed")
    boolish = [c for obs in observations for c in obs.opaque if looks_boolean(c)]
    if boolish:
        return unknown_gate(f"it goes through {boolish[0]}(), which is not followed")
    return gate


def _decided(
    probes: Probes, chain: Sequence[int], function_scope: bool, named: Sequence[str], counted: bool
) -> tuple[Gate, bool]:
    """The verdict from the first outcome that varies with the value, and whether that
    outcome is more than the raw value the read gave (which says only that the value is
    handed on, not what decides with it)."""
    if counted and function_scope and _returns_its_number(probes):
        return VALUE_GATE, True  # a size tested (> 0) and then handed back: a number
    enclosing = _enclosing(probes, chain)
    raw_read = enclosing is not None and enclosing[1] == (chain[0] if chain else None)
    for outputs, beyond in (
        (_descriptor(probes), True),
        (_returned(probes) if function_scope else None, True),
        (tested_outcomes(probes), True),
        (enclosing[0] if enclosing is not None else None, not raw_read),
    ):
        if outputs is not None and _varies(outputs):
            if counted and any(is_number(o) for o in outputs.values()):
                return VALUE_GATE, True  # int(...) of the value, handed on: a number
            return classify(outputs, named), beyond
    return VALUE_GATE, False


def _returns_its_number(probes: Probes) -> bool:
    """Whether the function returns the site's value made a number (``int(v)``) under some
    probe: the number is what the code wants, whatever tests it passed on the way."""
    for _, obs in probes:
        result = obs.flow.value if obs.flow.kind == "return" else None
        if result is not None and result.known and result.site and is_number(result.value):
            return True
    return False


def _varies(outputs: Mapping[str | None, object]) -> bool:
    """Whether the outcome changes with the value (a constant one decides nothing)."""
    known = {outcome_key(o) for o in outputs.values() if o is not UNKNOWN and o is not RAISED}
    return len(known - {outcome_key(o) for o in outputs.values() if is_opaque(o)}) > 1


def dispatches(observations: Sequence[Observation]) -> bool:
    """``if v == "bf16": ... elif v == "fp16": ...``: several tests of the value against
    different names pick one of many behaviours; the variable is a value, not a switch."""
    for obs in observations:
        names = {s for s in obs.compared if s not in _WORDS}
        if len(obs.site_tests) >= 2 and len(names) >= 2:
            return True
    return False


def _passes_value(probes: Probes, chain: Sequence[int]) -> bool:
    """Whether an expression around the read hands its value on (``os.environ["X"] if
    "X" in os.environ else "ib"``): a presence test that guards a value."""
    for node_id in chain[1:]:
        seen = {
            outcome_key(obs.chain[node_id].value)
            for _, obs in probes
            if node_id in obs.chain and obs.chain[node_id].plain
        }
        if len(seen) > 2:
            return True
    return False


def site_default(probes: Probes) -> str | None:
    """The value the site's read falls back to when the variable is unset, as a string."""
    for value, obs in probes:
        if value is None:
            default = obs.default
            if default is NOT_SEEN or default is None or default is UNKNOWN:
                return None
            if isinstance(default, str | bool | int | float):
                return str(default)
            return None
    return None


def looks_boolean(callee: str) -> bool:
    """Whether a callable's name says it answers a boolean (``str2bool``, ``is_set``)."""
    last = callee.rsplit(".", 1)[-1].lower()
    return any(word in last for word in _BOOLISH)


def names_an_index(name: str) -> bool:
    """Whether a variable's (or a local's) name says it holds an index or a count: its last
    word (``X_RANK``, ``device_id``), or NUM before it (``NUM_GPUS``)."""
    words = name_words(name)
    return bool(words) and (words[-1] in _INDEX_WORDS or "NUM" in words[:-1])


def _descriptor(probes: Probes) -> dict[str | None, object] | None:
    if all(obs.descriptor is NOT_SEEN for _, obs in probes):
        return None
    return {value: obs.descriptor for value, obs in probes if obs.descriptor is not NOT_SEEN}


def _returned(probes: Probes) -> dict[str | None, object] | None:
    """What the function returns under each probe, when that depends on the variable. Not
    numbers that branches on the value return as their own (``return 4`` under ``if``):
    those say how the branches differ, and the branch's test decides the verdict."""
    outputs: dict[str | None, object] = {}
    tainted = read = False
    computed: list[str | None] = []  # values under which it returns what the run computes
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
            computed.append(value)
            continue
        tainted = tainted or result.env
        read = read or result.site
        outputs[value] = result.value
    if not read and any(is_number(o) and o not in (0, 1) for o in outputs.values()):
        return None
    if computed:
        # ``if f == "1": return True`` / ``if f == "0": return False`` / ``return auto()``:
        # the values the code names decide, the others (unset among them) are left to the
        # run; where the named ones do not decide, the tests judge as before.
        decided = [o for o in outputs.values() if o is not RAISED]
        if not tainted or not _both_truths(decided):
            return None
        outputs.update(dict.fromkeys(computed, UNKNOWN))
    return outputs if tainted else None


def _both_truths(values: list[object]) -> bool:
    """Whether ``values`` are True and False, both and nothing else (compared, not
    hashed: a function may return a dict or a list)."""
    return (
        all(v in (True, False) for v in values)
        and any(v == True for v in values)  # noqa: E712
        and any(v == False for v in values)  # noqa: E712
    )


def _requirement(probes: Probes) -> Gate | None:
    """``assert get(N) == "1"``, ``if get(N) != "1": raise``: the first test of the site's
    value guards a raise, and the code goes on only for some set values (never unset)."""
    order = _site_test_order(probes)
    if not order:
        return None
    node_id = order[0]
    passing = next((obs.guards[node_id] for _, obs in probes if node_id in obs.guards), None)
    if passing is None:
        return None
    accepted: list[str] = []
    rejects_a_value = False
    for value, obs in probes:
        first = next((t for n, t, _ in obs.tests if n == node_id), None)
        if first is None or not first.known:
            return None
        goes_on = bool(first.value) == passing
        if value is None and goes_on:
            return None  # unset passes: a prohibition of some values, not a requirement
        if value is not None and goes_on:
            accepted.append(value)
        rejects_a_value = rejects_a_value or (not goes_on and value not in (None, ""))
    if not accepted or not rejects_a_value:
        return None  # any value will do: the variable is required, not a value of it
    listed = ", ".join(repr(v) for v in accepted[:4]) + (", ..." if len(accepted) > 4 else "")
    conditions = list(dict.fromkeys(c for _, obs in probes for c in obs.conditions))
    condition = " and ".join(conditions) or None
    return Gate(
        kind=GateKind.REQUIREMENT,
        on_value=accepted[0],
        on_values=tuple(accepted),
        reason=f"the code raises unless it is one of {listed}"
        + (f" (when {condition})" if condition else ""),
        condition=condition,
    )


def _site_test_order(probes: Probes) -> list[int]:
    """The branch tests the site's own value takes part in, ``is None`` checks last."""
    order: list[int] = []
    none_checks: set[int] = set()
    belongs = {node_id for _, obs in probes for node_id in obs.site_tests}
    for _, obs in probes:
        for node_id, _value, is_none_check in obs.tests:
            if node_id not in belongs:
                continue
            if node_id not in order:
                order.append(node_id)
            if is_none_check:
                none_checks.add(node_id)
    return [n for n in order if n not in none_checks] + [n for n in order if n in none_checks]


def tested_outcomes(probes: Probes) -> dict[str | None, object] | None:
    """The outcomes of the first branch test the site's own value takes part in (a test
    decided by another read of the variable alone judges that read, not this one)."""
    for node_id in _site_test_order(probes):
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


def _enclosing(probes: Probes, chain: Sequence[int]) -> tuple[dict[str | None, object], int] | None:
    """The outcomes of the outermost expression around the read known in every probe,
    and its node's id."""
    for node_id in reversed(chain):
        outputs: dict[str | None, object] = {}
        for value, obs in probes:
            seen = obs.chain.get(node_id)
            if seen is None or seen.value is UNKNOWN or is_opaque(seen.value):
                break
            outputs[value] = seen.value
        else:
            return outputs, node_id
    return None
