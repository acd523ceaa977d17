"""The analysis of one file: a pure function of its text, the options and the wrapper table."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import libcst as cst

from scanner.conventions import EMPTY, OFF_WORDS, ON_WORDS, PAIRS, is_launch_fact, says_disable
from scanner.interpret.classify import is_number, outcome_key
from scanner.interpret.decisions import decisions
from scanner.interpret.definition_tables import table_reads
from scanner.interpret.evaluate import NOT_SEEN, Evaluator, Observation
from scanner.interpret.expressions import iterable_items
from scanner.interpret.field_loops import field_loop_reads
from scanner.interpret.frames import Frame
from scanner.interpret.gates import Probes, names_an_index, site_default, verdict
from scanner.interpret.module import ParsedModule, flow_frame
from scanner.interpret.objects import parse_classes
from scanner.interpret.owners import owner_of
from scanner.interpret.probe import Probe
from scanner.interpret.quiet import passed_names
from scanner.interpret.registries import declaration, renamed
from scanner.interpret.settings_models import settings_reads
from scanner.interpret.stored_reads import follow_store
from scanner.interpret.uses import name_matcher, used_beyond_tests
from scanner.interpret.values import UNKNOWN, Opaque, V
from scanner.model import (
    LAUNCH_GATE,
    VALUE_GATE,
    Decision,
    DynamicRead,
    FileResult,
    Gate,
    GateKind,
    Polarity,
    ReadKind,
    Site,
    Write,
    WriteKind,
)
from scanner.patterns import dynamic_matches, matches
from scanner.settings import Settings
from scanner.syntax.events import Event
from scanner.syntax.index import ATTRIBUTE, CLASS, FUNCTION, SETTER, WrapperIndex
from scanner.syntax.reads import read_arguments
from scanner.syntax.scopes import body_statements, param_list
from scanner.syntax.walk import nodes

CANDIDATES: tuple[str | None, ...] = (None, *ON_WORDS, *OFF_WORDS, EMPTY)
# Probed first: what tells a switch from a value. Every string the code compares with is
# probed too, so the other spellings of the words (which code that compares none of them
# treats alike) only complete the lists of on and off values of a switch.
FIRST_PROBES: tuple[str | None, ...] = (None, "1", "0", "true", "false", EMPTY)
MAX_NAMED = 12  # strings the code compares with, probed besides the words
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
            return [_setter_argument(evaluator, event, frame, event.wrapper.name_param)]
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


def _setter_argument(evaluator: Evaluator, event: Event, frame: Frame, param: str | None) -> V:
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


def analyze(parsed: ParsedModule, index: WrapperIndex, settings: Settings) -> FileResult:
    """Sites, dynamic reads and writes of one parsed module."""
    sites: list[Site] = []
    dynamic: list[DynamicRead] = []
    writes: list[Write] = []
    match = settings.match
    descriptors = descriptor_classes(parsed, index)
    table_sites: list[Site] = []
    table_dynamic: list[DynamicRead] = []
    for event in parsed.events(index):
        names = resolve_names(parsed, event, index)
        resolved = sorted({n.value for n in names if n.known and isinstance(n.value, str)})
        unresolved = [n for n in names if not (n.known and isinstance(n.value, str))]
        if isinstance(event.kind, WriteKind):
            if not resolved and owned_by(parsed, event, index, unresolved, SETTER):
                continue  # a setter's own write: reported at its call sites
            if not resolved and event.unit.method_class in descriptors:
                continue  # a descriptor's own write (``set``): reported where it is used
            value = _written(parsed, event, index)
            targets: list[str | None] = [*resolved] or [None]
            for target in targets:
                if target is None or matches(target, match):
                    writes.append(_write(parsed, event, target, value))
            continue
        if unresolved and not resolved:
            tabled = table_reads(parsed, event, settings) if event.wrapper is not None else None
            if tabled is not None:  # a factory's call: its tables' keys are the variables
                table_sites.extend(tabled[0])
                table_dynamic.extend(tabled[1])
                continue
            if owned_by(parsed, event, index, unresolved, FUNCTION):
                continue  # a wrapper's own read: reported at its call sites
            if owned_by(parsed, event, index, unresolved, SETTER):
                continue  # a setter's read of what it writes: its calls are writes
            if event.unit.method_class in descriptors:
                continue  # a descriptor's own read: reported where it is constructed
            text = parsed.tree.code_for_node(event.node)
            if dynamic_matches(text, match):
                dynamic.append(
                    DynamicRead(
                        path=parsed.rel,
                        line=event.line,
                        column=event.column,
                        expression=text,
                        function=event.function,
                        reason=dynamic_reason(
                            event, unresolved, id(event.node) in parsed.attributes()
                        ),
                        via=event.wrapper.qualname if event.wrapper is not None else None,
                    )
                )
            continue
        quiet = _quiet_here(parsed, event, index)
        for name in resolved:
            if not matches(name, match) or name in quiet:
                continue
            gate, default, decided = _judged(parsed, event, name, index, settings)
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
                    target=event.binding.name if event.binding is not None else None,
                    decisions=decided,
                )
            )
    declared, undeclared = settings_reads(parsed, settings)
    fielded, unfielded, covered = field_loop_reads(parsed, settings)
    if covered:  # the calls whose variables are the fields': those are sites already
        dynamic = [d for d in dynamic if (d.line, d.column) not in covered]
    declared = [*declared, *fielded, *table_sites]
    undeclared = [*undeclared, *unfielded, *table_dynamic]
    if declared or undeclared:
        sites = sorted([*sites, *declared], key=lambda s: (s.line, s.column))
        dynamic = sorted([*dynamic, *undeclared], key=lambda d: (d.line, d.column))
    return FileResult(tuple(sites), tuple(dynamic), tuple(writes))


def _quiet_here(parsed: ParsedModule, event: Event, index: WrapperIndex) -> frozenset[str]:
    """The variables a call of a wrapper reads by names of the wrapper's own and gives
    nothing back from (their sites are in its body), less any name its arguments hold."""
    wrapper = event.wrapper
    if wrapper is None or wrapper.kind != FUNCTION or not wrapper.quiet:
        return frozenset()
    assert isinstance(event.node, cst.Call)
    evaluator = parsed.evaluator(index)
    frame = parsed.resolver(event, index)
    values = [evaluator.evaluate(arg.value, frame) for arg in event.node.args]
    if any(not v.known for v in values):
        return frozenset()  # an argument may name anything
    return frozenset(wrapper.quiet) - passed_names(values)


def descriptor_classes(parsed: ParsedModule, index: WrapperIndex) -> frozenset[str]:
    """The qualified classes of this module that descriptors are built from (the
    descriptor's class and its bases)."""
    found: set[str] = set()
    prefix = f"{parsed.module_name}." if parsed.module_name else ""
    for wrapper in index.wrappers.values():
        if wrapper.kind == CLASS and wrapper.path == parsed.rel:
            found.update(prefix + name for name in parse_classes(wrapper.source))
    return frozenset(found)


def _judged(
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
    named = tuple(s for s in named_strings(parsed, event) if s != knob)
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
        _used_as_value(event, probes) or _guards_a_read(parsed, event, knob, index)
    ):
        gate = VALUE_GATE  # `x = get(N); if x: use(x)`: the test only guards the value
    if gate.kind is GateKind.PRESENCE and _guards_a_write(parsed, event, knob, index):
        # `if N not in os.environ: os.environ[N] = d`: sets a default; `if N in os.environ:
        # del os.environ[N]`: a clean-up. Either way the test only decides the write.
        gate = VALUE_GATE
    if gate.kind in (GateKind.BOOLEAN, GateKind.PRESENCE) and _an_index(event, knob, probes):
        gate = VALUE_GATE  # `int(get("X_RANK", "0")) == 0`: which one, not whether on
    disable = says_disable(knob) or _bound_condition_says_disable(event, probes)
    if disable and gate.kind in _SWITCHES:
        gate = replace(gate, polarity=Polarity.DISABLE)
    # A value is followed only where the code compares it with strings: a choice.
    choice = gate.kind is not GateKind.VALUE or any(s not in CANDIDATES for s in named)
    found = decisions(parsed, event, probes) if gate.kind in _DECIDING and choice else ()
    return gate, _default(parsed, event, index, probes), found


def _partners(named: Sequence[str]) -> list[str]:
    """The other word of each on/off pair the code names ("no" for a test of "yes"): with
    both probed, the convention can tell the switch."""
    found: list[str] = []
    for on, off in PAIRS:
        if on in named or off in named:
            found += [on, off]
    return found


def _bound_condition_says_disable(event: Event, probes: Probes) -> bool:
    """Whether the read's condition is bound to a name that says it turns a feature off
    (``disable_fused = get("X", "0") == "1"``, ``def fusion_disabled(): return ...``). The
    name of a variable holding the raw value says nothing of what its test does."""
    binding = event.binding
    if binding is None or not event.chain or not says_disable(binding.name):
        return False
    unset = next((obs for value, obs in probes if value is None), None)
    bound = unset.chain.get(event.chain[-1]) if unset is not None else None
    return bound is not None and isinstance(bound.value, bool)


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


def _an_index(event: Event, knob: str, probes: Probes) -> bool:
    """Whether the read is made a number (``int()``, ``float()``) and the variable, or the
    local the number is bound to, is named for an index or a count: compared with 0 or 1
    it asks which process or device this is, as a switch's int() of "0" and "1" would."""
    if not any(obs.counted for _, obs in probes):
        return False
    if names_an_index(knob):
        return True
    binding = event.binding
    if binding is None or binding.value is None or binding.store == "other":
        return False
    unset = next((obs for value, obs in probes if value is None), None)
    bound = unset.chain.get(id(binding.value)) if unset is not None else None
    return bound is not None and is_number(bound.value) and names_an_index(binding.name)


def _guards_a_read(parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex) -> bool:
    """Whether a membership test sits in the same scope as a read of the variable's
    value (``if N in os.environ: path = os.environ[N]``)."""
    if event.kind is not ReadKind.CONTAINS:
        return False
    for other in parsed.events(index):
        if other is event or other.unit.scope is not event.unit.scope or not other.is_read:
            continue
        if other.kind in (ReadKind.CONTAINS, ReadKind.WRAPPER, ReadKind.DESCRIPTOR):
            continue
        if event.unit.scope is None and other.unit.statements != event.unit.statements:
            continue
        names = resolve_names(parsed, other, index)
        if any(n.known and n.value == knob for n in names):
            return True
    return False


_WRITES = (
    WriteKind.SET,
    WriteKind.SETDEFAULT,
    WriteKind.PUTENV,
    WriteKind.POP,
    WriteKind.DELETE,
    WriteKind.UNSETENV,
)


def _guards_a_write(parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex) -> bool:
    """Whether the read (or a local holding what it read) is in the test of an ``if`` whose
    branches set or remove the variable itself: the test decides only whether to write it,
    and what uses the variable reads it later."""
    roots = [event.unit.scope] if event.unit.scope is not None else [*event.unit.statements]
    binding = event.binding
    local = None
    if binding is not None and binding.store == "local" and binding.value is event.node:
        local = binding.name
    branches = {
        id(part)
        for root in roots
        for node in nodes(root)
        if isinstance(node, cst.If) and _tests_the_read(node.test, event, local)
        for part in (node.body, node.orelse)
        if part is not None
    }
    if not branches:
        return False
    for other in parsed.events(index):
        if other.kind not in _WRITES or other.unit.scope is not event.unit.scope:
            continue
        if branches.isdisjoint(other.target):
            continue
        if any(n.known and n.value == knob for n in resolve_names(parsed, other, index)):
            return True
    return False


def _tests_the_read(test: cst.BaseExpression, event: Event, local: str | None) -> bool:
    if id(test) in event.target:
        return True
    return local is not None and any(
        isinstance(n, cst.Name) and n.value == local for n in nodes(test)
    )


def _used_as_value(event: Event, probes: Probes) -> bool:
    """Whether the local the read's value is bound to (as read) is used for more than
    being tested for truth or None."""
    binding, scope = event.binding, event.unit.scope
    if binding is None or binding.store != "local" or not isinstance(scope, cst.FunctionDef):
        return False
    if (
        binding.value is None
        or not event.chain
        or not all(
            _same(obs.chain.get(id(binding.value)), obs.chain.get(event.chain[0]))
            for _, obs in probes
        )
    ):
        return False  # the local holds something computed from the value, not the value
    return used_beyond_tests(scope.body, name_matcher(binding.name))


def _same(first: V | None, second: V | None) -> bool:
    return first is not None and second is not None and first.value == second.value


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
    if event.field is None or not event.is_read:
        return lambda value: _probe(parsed, event, knob, value, index)
    runs: dict[tuple[object, ...], Observation] = {}
    code = parsed.tree.code_for_node(event.node)

    def probe(value: str | None) -> Observation:
        if value is None:
            return _probe(parsed, event, knob, value, index)
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
            return _probe(parsed, event, knob, value, index)
        key = (*outcome_key(given.value), given.env, given.site, given.raised)
        found = runs.get(key)
        if found is None:
            found = runs[key] = _probe(parsed, event, knob, value, index)
        return found

    return probe


def _probe(
    parsed: ParsedModule, event: Event, knob: str, value: str | None, index: WrapperIndex
) -> Observation:
    probe = Probe(
        knob=knob,
        value=value,
        site=id(event.node),
        site_name=event.name,
        target=event.target,
        chain=frozenset(event.chain),
    )
    evaluator = parsed.evaluator(index, probe)
    frame = flow_frame(parsed, event, evaluator)
    scope = event.unit.scope
    if isinstance(scope, cst.Lambda):
        return evaluator.run_expression(scope.body, frame)
    if isinstance(scope, cst.FunctionDef):
        return evaluator.run(body_statements(scope.body), frame)
    return evaluator.run(event.unit.statements, frame)


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


def owned_by(
    parsed: ParsedModule, event: Event, index: WrapperIndex, names: Sequence[V], kind: str
) -> bool:
    """Whether an event's name is the parameter of a wrapper (or setter) of the index:
    the read is then reported where the wrapper is called, not here."""
    owner = owner_of(parsed, event, {p for n in names for p in n.params})
    if owner is None:
        return False
    module = parsed.module_name
    qualname = f"{module}.{owner.qualname}" if module else owner.qualname
    return qualname in (index.setters if kind == SETTER else index.wrappers)


def dynamic_reason(event: Event, names: Sequence[V], in_class_body: bool = False) -> str:
    """Why an event's variable name cannot be named statically."""
    wrapper = event.wrapper
    if wrapper is not None and event.field is not None:
        where = f"{wrapper.registry_class} ({wrapper.path}:{wrapper.line})"
        return f"{event.field} is no field of {where} whose variable the scan could read"
    if wrapper is not None and wrapper.name_param == ATTRIBUTE:
        if not in_class_body:
            return (
                f"{wrapper.short_name}() takes its name from the attribute it is assigned to "
                "in a class body, and this call is not one"
            )
        return f"{wrapper.short_name}() builds its name from values not known statically"
    if wrapper is not None:
        return f"the name passed to {wrapper.short_name}() is not known here"
    node = event.name
    if node is None:
        return "the read has no name argument"
    if isinstance(node, cst.Name):
        if any(n.params for n in names):
            return f"the name is the parameter {node.value!r}, and no call passes a known value"
        if event.loops:
            return f"the name comes from {node.value!r}, a loop over data not known statically"
        return f"the name comes from {node.value!r}, which is not a constant"
    if isinstance(node, cst.FormattedString | cst.BinaryOperation | cst.ConcatenatedString):
        return "the name is built at run time from values not known statically"
    if isinstance(node, cst.Attribute):
        return "the name is an attribute whose value is not known statically"
    if isinstance(node, cst.Call):
        return "the name is computed by a call"
    return "the name is computed at run time"


def _written(parsed: ParsedModule, event: Event, index: WrapperIndex) -> str | None:
    """The value a write sets, when it is a known string (a registry's field set to a
    value: ``envs.X.set(True)`` writes ``str(True)``)."""
    frame = parsed.resolver(event, index)
    evaluator = parsed.evaluator(index)
    if event.field is not None:
        if event.value is None:
            return None
        value = evaluator.evaluate(event.value, frame)
        plain = value.value if value.plain else None
        return str(plain) if isinstance(plain, str | bool | int | float) else None
    if event.wrapper is not None:
        value = _setter_argument(evaluator, event, frame, event.wrapper.value_param)
    elif event.value is not None:
        value = evaluator.evaluate(event.value, frame)
    else:
        return None
    return value.value if value.known and isinstance(value.value, str) else None


def _write(parsed: ParsedModule, event: Event, name: str | None, value: str | None) -> Write:
    assert isinstance(event.kind, WriteKind)
    return Write(
        name=name,
        path=parsed.rel,
        line=event.line,
        column=event.column,
        kind=event.kind,
        function=event.function,
        value=value,
        via=event.wrapper.qualname if event.wrapper is not None else None,
    )
