"""The gate verdict of one site: its code probed with values of the variable; its default."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import libcst as cst

from scanner.conventions import EMPTY, OFF_WORDS, ON_WORDS, PAIRS, is_launch_fact, says_disable
from scanner.interpret.classify import outcome_key
from scanner.interpret.decisions import decisions
from scanner.interpret.evaluate import NOT_SEEN, Observation
from scanner.interpret.frames import Frame
from scanner.interpret.gates import Probes, names_an_index, site_default, verdict
from scanner.interpret.module import ParsedModule
from scanner.interpret.probe import Probe
from scanner.interpret.registries import declaration
from scanner.interpret.returned_parts import returned_part
from scanner.interpret.row_stores import row_store
from scanner.interpret.site_context import (
    an_index,
    bound_condition_says_disable,
    guards_a_read,
    guards_a_write,
    used_as_value,
)
from scanner.interpret.site_runs import SiteRuns
from scanner.interpret.spellings import SharedRuns
from scanner.interpret.stored_choices import config_field, listed_choices, stored_choices
from scanner.interpret.stored_reads import follow_store
from scanner.interpret.values import UNKNOWN, Opaque, V
from scanner.model import (
    LAUNCH_GATE,
    VALUE_GATE,
    Decision,
    Gate,
    GateKind,
    Polarity,
    ReadKind,
)
from scanner.settings import Settings
from scanner.syntax.events import Event
from scanner.syntax.index import SETTER, WrapperIndex
from scanner.syntax.reads import read_arguments

CANDIDATES: tuple[str | None, ...] = (None, *ON_WORDS, *OFF_WORDS, EMPTY)
# Probed first: what tells a switch from a value. Every string the code compares with is
# probed too, so the other spellings of the words (which code that compares none of them
# treats alike) only complete the lists of on and off values of a switch.
FIRST_PROBES: tuple[str | None, ...] = (None, "1", "0", "true", "false", EMPTY)
MAX_NAMED = 12  # strings the code compares with, probed besides the words


def judged(
    parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex, settings: Settings
) -> tuple[Gate, str | None, tuple[Decision, ...]]:
    """``judge``, once per template of class-body declarations and what the name says
    (a launch fact, a disable word, an index): the rest of the verdict is the code's. A
    declaration's decisions are not shared (they are placed at its own site): its reads
    through the class are sites of their own, which decide."""
    declared = declaration(parsed, event)
    if declared is None or declared[1] != knob:
        return judge(parsed, event, knob, index, settings)
    template, attribute = declared
    facts = (
        is_launch_fact(knob, settings.launch_facts),
        says_disable(knob),
        names_an_index(knob),
        bool(parsed.users(attribute, "global")),
    )
    key = ("gate", template, facts)
    found = parsed.shared.get(key)
    if found is None:
        found = parsed.shared[key] = judge(parsed, event, knob, index, settings)
    gate, default, _ = found
    return gate, default, ()


def judge(
    parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex, settings: Settings
) -> tuple[Gate, str | None, tuple[Decision, ...]]:
    """The gate verdict of one site for ``knob``, the default written at it, and where the
    code decides with its value."""
    probe = _prober(parsed, event, knob, index)
    if is_launch_fact(knob, settings.launch_facts):
        probes: Probes = [(None, probe(None))]
        return LAUNCH_GATE, _default(parsed, event, index, probes), ()
    # the values a wrapper's call maps (``mapping={...}``) are probed with the rest
    named = tuple(
        s
        for s in dict.fromkeys((*named_strings(parsed, event), *listed_choices(event)[:MAX_NAMED]))
        if s != knob
    )
    first = tuple(dict.fromkeys((*FIRST_PROBES, *named, *_partners(named))))
    probes = []
    for value in first:
        probes.append((value, probe(value)))
        if not probes[-1][1].complete:
            # Out of steps: the verdict is unknown whatever the other probes show, and
            # the rest of this function reads only the unset probe (the first).
            break
    function_scope = event.unit.scope is not None
    gate = verdict(probes, event.chain, function_scope=function_scope, named=named)
    if gate.kind in (GateKind.BOOLEAN, GateKind.PRESENCE):
        # A switch: the other spellings of the words, for the full lists of on and off values.
        rest = [v for v in CANDIDATES if v not in first]
        probes += [(value, probe(value)) for value in rest]
        gate = verdict(probes, event.chain, function_scope=function_scope, named=named)
    if gate.kind is GateKind.VALUE:
        followed = follow_store(parsed, event, knob, index, probes, named)
        if followed is not None:
            gate = followed
    elif gate.kind is GateKind.PRESENCE and (
        used_as_value(event, probes) or guards_a_read(parsed, event, knob, index)
    ):
        gate = VALUE_GATE  # `x = get(N); if x: use(x)`: the test only guards the value
    if gate.kind is GateKind.PRESENCE and guards_a_write(parsed, event, knob, index):
        # `if N not in os.environ: os.environ[N] = d`: sets a default; `if N in os.environ:
        # del os.environ[N]`: a clean-up. Either way the test only decides the write.
        gate = VALUE_GATE
    if gate.kind in (GateKind.BOOLEAN, GateKind.PRESENCE) and an_index(event, knob, probes):
        gate = VALUE_GATE  # `int(get("X_RANK", "0")) == 0`: which one, not whether on
    disable = says_disable(knob) or bound_condition_says_disable(event, probes)
    if disable and gate.kind in _SWITCHES:
        gate = replace(gate, polarity=Polarity.DISABLE)
    # A value is followed only where the code compares it with strings: a choice.
    choice = gate.kind is not GateKind.VALUE or any(s not in CANDIDATES for s in named)
    if gate.kind is GateKind.VALUE and not choice:
        # Stored at module level and compared where it is used: those strings are its choices.
        stored = [s for s in stored_choices(parsed, event) if s != knob]
        more = [s for s in stored if s not in first]
        probes += [(value, probe(value)) for value in more[:MAX_NAMED]]
        choice = bool(stored) or returned_part(event) or config_field(event)
    found = decisions(parsed, event, probes) if gate.kind in _DECIDING and choice else ()
    if gate.kind is GateKind.VALUE and not found:
        # a row's value stored on an object under the row's key (scanner.interpret.row_stores)
        row = row_store(parsed, event, knob)
        found = (row,) if row is not None else ()
    return gate, _default(parsed, event, index, probes), found


def _partners(named: Sequence[str]) -> list[str]:
    """The other word of each on/off pair the code names ("no" for a test of "yes"): with
    both probed, the convention can tell the switch."""
    found: list[str] = []
    for on, off in PAIRS:
        if on in named or off in named:
            found += [on, off]
    return found


_SWITCHES = (GateKind.BOOLEAN, GateKind.PRESENCE, GateKind.UNKNOWN)
# Verdicts whose decisions a role may be proposed from: switches, and values that choose.
_DECIDING = (GateKind.BOOLEAN, GateKind.PRESENCE, GateKind.VALUE)
_DIRECT = (ReadKind.GET, ReadKind.GETENV, ReadKind.ACCESSOR)


def _default(parsed: ParsedModule, event: Event, index: WrapperIndex, probes: Probes) -> str | None:
    """The default written at the site, whatever path leads to it: the read's own
    default argument; for a wrapper or a descriptor, the default its read fell back to,
    else the value it gives with the variable unset."""
    if event.kind in _DIRECT and isinstance(event.node, cst.Call):
        _, node = read_arguments(event.node)
        if node is None:
            return None
        evaluator = parsed.evaluator(index)
        value = evaluator.evaluate(node, parsed.resolver(event, index))
        if value.plain and not value.params:
            return _text(value.value)
        return site_default(probes)
    if event.wrapper is None:
        return None
    found = site_default(probes)
    if found is not None:
        return found
    unset = next((obs for value, obs in probes if value is None), None)
    if unset is None:
        return None
    given: object = (
        unset.descriptor if unset.descriptor is not NOT_SEEN else unset.chain.get(id(event.node))
    )
    plain = given.value if isinstance(given, V) else given
    return _text(plain) if plain is not None and not isinstance(plain, Opaque) else None


def _text(value: object) -> str | None:
    if value is None or not isinstance(value, str | bool | int | float):
        return None
    return str(value)


def _prober(
    parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex
) -> Callable[[str | None], Observation]:
    """How to probe one site. A registry field's method (``envs.X.get()``) is run alone
    first: set values it answers alike (``"1"``, ``"true"``, ``"yes"`` for an ``EnvBool``)
    give the code around it the same value, and share one run of that code."""
    shared = SharedRuns(SiteRuns(parsed, event, knob, index), lambda: len(parsed.shared))
    if event.field is None or not event.is_read:
        return shared
    runs: dict[tuple[object, ...], Observation] = {}
    code = parsed.tree.code_for_node(event.node)

    def probe(value: str | None) -> Observation:
        if value is None:
            return shared(value)
        # The same call of the same field answers alike wherever the file makes it.
        memo = ("alone", code, knob, value)
        stored = parsed.shared.get(memo)
        if stored is not None and stored[0] is index:
            given = stored[1]
        else:
            alone = parsed.evaluator(index, Probe(knob=knob, value=value, site=id(event.node)))
            assert isinstance(event.node, cst.BaseExpression)
            given = alone.evaluate(event.node, Frame(parsed.symbols, {}))
            if not alone.seen.complete:
                given = V(value=UNKNOWN)
            parsed.shared[memo] = (index, given)
        if not given.known or not given.plain:
            return shared(value)
        key = (*outcome_key(given.value), given.env, given.site, given.raised)
        found = runs.get(key)
        if found is None:
            found = runs[key] = shared(value)
        return found

    return probe


def named_strings(parsed: ParsedModule, event: Event) -> tuple[str, ...]:
    """The strings the code around a site compares with (its function, or its statement,
    and the wrapper it calls): probed besides the on and off words."""
    roots: list[cst.CSTNode] = [event.unit.scope] if event.unit.scope else [*event.unit.statements]
    if event.wrapper is not None and event.wrapper.kind != SETTER:
        roots.extend(parsed.wrapper_roots(event.wrapper))
    found: list[str] = []
    for root in roots:
        found.extend(parsed.compared_strings(root))
    return tuple(dict.fromkeys(found))[:MAX_NAMED]
