"""What a use of a carried value decides: its test, or the tests where it is carried on."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import replace

from scanner.model import Outcome
from scanner.reach.attribute_flags import attributes_set, event_tests, events_set, flag_loads
from scanner.reach.bound_callee import bound_function
from scanner.reach.carriers import Carriers
from scanner.reach.combined import combined_loads
from scanner.reach.compile_modes import tuned_mode
from scanner.reach.deterministic_modes import handed_mode, modes_handed
from scanner.reach.emptied import EMPTY, emptied
from scanner.reach.factory_fields import factory_field
from scanner.reach.guarded import fallen_through, reaching
from scanner.reach.import_fallbacks import import_fallback
from scanner.reach.inductor import inductor_option, option_taken
from scanner.reach.inherited import inherited_call
from scanner.reach.instance_fields import instance_reads
from scanner.reach.key_reads import KEY, key_reads
from scanner.reach.keyword_branches import (
    DETERMINISTIC_FLAGS,
    conditioned,
    handed_as_flag,
    lambda_conditioned,
)
from scanner.reach.module_flags import module_flags_set
from scanner.reach.modules import Module, Tree
from scanner.reach.object_or_none import AN_OBJECT, nones_set
from scanner.reach.picked_returns import picked_constants, returned_by_value
from scanner.reach.shapes import assigns, called, constant, constants_set, named, returns_naming
from scanner.reach.sides import TESTED, Branch, decided, leaves, names_around
from scanner.reach.singletons import accessed_loads
from scanner.reach.slots import filled_with, slot, slot_loads, splatted_key
from scanner.reach.splatted_fields import splatted_fields
from scanner.reach.split_flags import handed_as_split
from scanner.reach.string_flags import compared_loads, strings_set
from scanner.reach.truth import IsCarrier, truths, value_of
from scanner.reach.tuple_parts import element_at, kept_and_returned, unpacked
from scanner.source.ast_walk import children, walk

MAX_CARRY = 3  # returns and stores a carried value is followed through
MAX_CONSUMERS = 64  # tests that use one carried value
# Calls a value handed in and given back is followed back out of, one in another (vllm
# 0.33.0 v1/attention/ops/dcp.py:1298 -> cp_common.py:84-87 -> :60-70).
MAX_BACK = 2

# The calls a carried value was handed into, innermost last, each with its module and the
# depth there: a return of the value (or of a truth it decides) goes back to that call.
Back = tuple[tuple[Module, ast.Call, int], ...]


def returned_branches(
    home: Module,
    carried: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    part: int | None = None,
    *,
    choices: bool = False,
) -> Iterator[Branch]:
    """The branches decided by calls of the function ``carried`` (defined in ``home``)
    returns the value of (``part``: as that element of the tuple it returns; ``choices``:
    it gives the value's string back, each string its callers compare with is weighed)."""
    short = carried.rsplit(".", 1)[-1]
    count = 0
    for rel in carriers.modules_naming(home, carried[len(home.name) + 1 :].split(".", 1)[0]):
        module = tree.module(rel)
        if module is None:
            continue
        aliases = {short, *(local for local, target in module.imports.items() if target == carried)}
        for branch in conditioned(module, carried, aliases, outcomes) if part is None else ():
            count += 1
            yield branch
        for call in (c for alias in sorted(aliases) for c in module.calls_named(alias)):
            owner = module.owner_class(call)
            if module.resolve(call.func, owner) != carried and not inherited_call(
                module, call, carried
            ):
                continue
            found = (
                # no probe stored what a caller binds at module level (``ON = enabled()``)
                uses(
                    module,
                    call,
                    outcomes,
                    tree,
                    carriers,
                    depth,
                    choices=choices,
                    module_store=True,
                )
                if part is None
                else _part_used(module, call, part, outcomes, tree, carriers, depth)
            )
            for branch in found:
                count += 1
                if count > MAX_CONSUMERS:
                    return
                yield branch


def _part_used(
    module: Module,
    call: ast.Call,
    part: int,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """The branches decided where a caller unpacks element ``part`` of the tuple ``call``
    returns (scanner.reach.tuple_parts), or returns the tuple on to its own callers."""
    for target in unpacked(module, call, part):
        function = module.function_node_around(target)
        if isinstance(target, ast.Subscript):
            yield from uses(module, target, outcomes, tree, carriers, depth)
        elif function is not None:
            yield from local_tests(module, function, target.id, outcomes, tree, carriers, depth)
    kept = kept_and_returned(module, call)
    name = module.function_around(call) if kept is not None else None
    if name is not None and depth < MAX_CARRY:
        carriers.want([(module.name, name[len(module.name) + 1 :].split(".", 1)[0])])
        yield from returned_branches(module, name, outcomes, tree, carriers, depth + 1, part)


def _part_returned(
    module: Module,
    returned: ast.Tuple,
    part: int,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """The carried value (or a value computed from it, ``x.strip().lower()``) returned as
    element ``part`` of a tuple: the tests of that element where the callers unpack it."""
    function = module.function_around(returned)
    element = returned.elts[part]
    held = list(outcomes) if element is carrier else _computed(element, carrier, outcomes)
    if function is None or held is None or depth >= MAX_CARRY:
        return
    # A local the function binds again holds the machine's answers too (TransformerEngine
    # dot_product_attention/utils.py:399-1130 sets ``use_flash_attention = False`` under
    # dozens of checks of the device and the inputs): what it returns is not the value.
    scope = module.function_node_around(returned)
    if (
        isinstance(element, ast.Name)
        and scope is not None
        and len(module.local_bindings(scope).get(element.id, ())) > 1
    ):
        return
    carriers.want([(module.name, function[len(module.name) + 1 :].split(".", 1)[0])])
    yield from returned_branches(module, function, held, tree, carriers, depth + 1, part)


def uses(
    module: Module,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    *,
    choices: bool = False,
    module_store: bool = False,
    unset: Sequence[tuple[str | None, Outcome]] = (),
    back: Back = (),
) -> Iterator[Branch]:
    """The branches a use of the carried value decides: the test it takes part in, or,
    when the value (or a value computed from it and literals alone, ``str(x or "eager")``)
    is returned or bound to a local or an attribute, the tests further on. ``choices``: the
    value is a string the code compares with others, each of which is weighed too.
    ``module_store``: a module-level name the value is bound to in a test with other
    operands (``_X = HAS_LIB and read``) is followed to its loads (where the probes made no
    store of it: the rest of its test was not known to them; other bindings are ``_bound``'s).
    ``unset``: what the function may return with the variable unset, where the return of
    the value is not reached then (``scanner.reach.guarded.fallen_through``). ``back``: the
    calls the value was handed into (``_handed``); a return of it is that call's value."""
    node: ast.AST = carrier
    for outer in module.ancestors(carrier):
        if isinstance(outer, TESTED) and outer.test is node:
            found = list(decided(module, outer.test, _is(carrier), outcomes, choices=choices))
            tuned = tuned_mode(module, outer, found) if isinstance(outer, ast.IfExp) else []
            if tuned:
                yield from tuned
                return
            yield from found
            if isinstance(outer, ast.If) and depth < MAX_CARRY:
                yield from _early_return(module, outer, carrier, outcomes, tree, carriers, depth)
            if isinstance(outer, ast.If):
                yield from _flag_set(module, outer, carrier, outcomes, tree, carriers, depth)
            if isinstance(outer, ast.IfExp | ast.If):
                yield from _picked(module, outer.test, carrier, outcomes, tree, carriers, depth)
            return
        part = element_at(node, carrier) if isinstance(outer, ast.Return) else None
        if part is not None:
            assert isinstance(node, ast.Tuple)
            yield from _part_returned(
                module, node, part, carrier, [*outcomes, *unset], tree, carriers, depth
            )
            return
        if node is not carrier and (
            isinstance(outer, ast.Return | ast.Assign | ast.AnnAssign | ast.keyword)
            or (isinstance(outer, ast.Call) and any(a is node for a in outer.args))
        ):
            deciding = _deciding(module, node, carrier, outcomes)
            if deciding is None:
                return
            carrier, outcomes = deciding
        if node is carrier and isinstance(outer, ast.keyword):
            field = factory_field(module, outer)
            if field is not None:
                # ``x: T = field(default_factory=read)``: the reads of the field it gives
                yield from _field_reads(field, outcomes, tree, carriers, depth, choices)
                return
        if node is carrier and isinstance(outer, ast.keyword | ast.Assign):
            flag = handed_as_flag(module, outer, carrier, outcomes) or handed_mode(
                module, outer, carrier, outcomes, tree
            )
            if flag is None and isinstance(outer, ast.keyword):
                flag = handed_as_split(module, outer, carrier, outcomes)
            if flag is not None:
                yield flag
                return
            option = inductor_option(module, outer) if isinstance(outer, ast.Assign) else None
            if option is not None and outer.value is carrier:
                owner = module.owner_class(carrier)
                taken = option_taken(outcomes)
                # false, Inductor runs its default choice in the tuned one's place
                yield Branch(
                    module, (), owner, taken, carrier, True, replaces=True, marks=(option,)
                )
                return
        if node is carrier and isinstance(outer, ast.Return):
            if back:
                caller, call, at = back[-1]
                given = [*outcomes, *unset]
                yield from uses(
                    caller, call, given, tree, carriers, at, choices=choices, back=back[:-1]
                )
                return
            if depth >= MAX_CARRY:
                return
            function = module.function_around(outer)
            if function is not None:
                carriers.want([(module.name, function[len(module.name) + 1 :].split(".", 1)[0])])
                returned = [*outcomes, *unset]
                yield from returned_branches(module, function, returned, tree, carriers, depth + 1)
            return
        if node is carrier and isinstance(outer, ast.Assign | ast.AnnAssign):
            if assigns(outer, carrier):
                yield from _bound(module, outer, outcomes, tree, carriers, depth, choices)
                if module_store and isinstance(outer.value, ast.BoolOp):
                    yield from module_name_tests(module, outer, outcomes, tree, carriers, depth)
                yield from _cache_cell(module, outer, outcomes, tree, carriers, depth)
            return
        if node is carrier and isinstance(outer, ast.Call | ast.keyword):
            yield from _handed(
                module, outer, carrier, outcomes, tree, carriers, depth, choices, back
            )
        if node is carrier and isinstance(outer, ast.Dict):
            yield from _dict_value(module, outer, carrier, outcomes, tree, carriers, depth, choices)
            return
        if node is carrier and isinstance(outer, ast.Lambda):
            registered = lambda_conditioned(module, carrier, outcomes)
            if registered is not None:
                yield registered
            return
        if not isinstance(outer, ast.expr):
            return
        if node is carrier:
            computed = _computed(outer, carrier, outcomes)
            if computed is not None:
                carrier, outcomes = outer, computed
        node = outer


def _computed(
    outer: ast.expr, carrier: ast.expr, outcomes: Sequence[tuple[str | None, Outcome]]
) -> list[tuple[str | None, Outcome]] | None:
    """The value of ``outer`` under each outcome of the carrier, where it has one
    (``int(x)``, ``str(x or "eager")``): values it raises on (``int("true")``) are values no
    run has, and are left out; None when the value with the variable unset is not known."""
    computed: list[tuple[str | None, Outcome]] = []
    for value, outcome in outcomes:
        known, result = value_of(outer, _is(carrier), outcome)
        if known and isinstance(result, _PLAIN):
            computed.append((value, result))
        elif value is None:
            return None
    return computed


_PLAIN = (str, bool, int, float, type(None))


def _early_return(
    module: Module,
    statement: ast.If,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """``if not envs.X: return False`` in a predicate: the function returns False where the
    test holds, and what the rest decides elsewhere; its callers' tests decide with that."""
    body = statement.body
    if statement.orelse or not isinstance(body[-1], ast.Return):
        return
    if any(module.leaves(s) for s in body[:-1]):
        return
    returned = constant(body[-1].value)
    if not isinstance(returned, bool):
        return
    deciding = _deciding(module, statement.test, carrier, outcomes)
    function = module.function_around(statement)
    if deciding is None or function is None:
        return
    carried = [(v, returned if held else not returned) for v, held in deciding[1]]
    carriers.want([(module.name, function[len(module.name) + 1 :].split(".", 1)[0])])
    yield from returned_branches(module, function, carried, tree, carriers, depth + 1)


def _predicate(
    module: Module,
    test: ast.expr,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """``if not enable_lean: return False`` on a parameter of a predicate: as
    ``_early_return``, the callers' tests of what it returns decide with the parameter."""
    statement = module.parent(test)
    if not isinstance(statement, ast.If) or statement.test is not test or depth >= MAX_CARRY + 2:
        return
    loads = [n for n in walk(test) if isinstance(n, ast.Name) and n.id == name]
    if len(loads) == 1:
        yield from _early_return(module, statement, loads[0], outcomes, tree, carriers, depth)


def _picked(
    module: Module,
    test: ast.expr,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """``return "fast" if fast else None``, ``if fast: return "fast"`` then other constants:
    the constants the function may return under each value, to its callers' tests of them
    (``if layout is None: return None``)."""
    picked = picked_constants(module, test, carrier) if depth < MAX_CARRY else None
    function = module.function_around(test) if picked is not None else None
    if picked is None or function is None:
        return
    # Each constant the function may return under a value, for some choice of the rest of
    # the test (``requested == "x" and available()``: unset, either side may run).
    names = names_around(module, test)
    carried: list[tuple[str | None, Outcome]] = []
    for value, outcome in outcomes:
        found = truths(test, _is(carrier), outcome, names)
        if found is None:
            if value is None:
                return  # what the test does with the variable unset is not known
            continue
        carried.extend((value, o) for o in (picked[0] if any(found) else ()))
        carried.extend((value, o) for o in (picked[1] if not all(found) else ()))
    carriers.want([(module.name, function[len(module.name) + 1 :].split(".", 1)[0])])
    yield from returned_branches(module, function, carried, tree, carriers, depth + 1)


def _flag_set(
    module: Module,
    statement: ast.If,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """``if x or envs.X: flag = False`` / ``else: flag = ...``: a local one side sets to a
    constant, tested further on, carries the decision (true or false as that side runs)."""
    deciding = _deciding(module, statement.test, carrier, outcomes)
    if deciding is None and statement.test is carrier:  # ``if int(os.environ.get(N)):``
        deciding = carrier, [(v, bool(o)) for v, o in outcomes]
    function = module.function_node_around(statement)
    if deciding is not None and function is None and depth < MAX_CARRY + 2:
        yield from _module_flag_tests(module, statement, deciding[1], tree, carriers, depth)
    if deciding is None or function is None:
        return
    end = statement.end_lineno or statement.lineno
    for side, holds in ((statement.body, True), (statement.orelse, False)):
        for name, value in constants_set(side).items():
            carried = _set_by(deciding[1], holds, value, not value)
            yield from local_tests(
                module, function, name, carried, tree, carriers, depth, after=end
            )
    # A local one side sets to a string (``if read == "1": mode = "reduce"``): its tests
    # further on, and its comparisons in the values of other locals.
    for name, holds, there, otherwise in strings_set(function, statement):
        carried = [
            (v, held)
            for v, truth in deciding[1]
            for held in (there if truth is holds else otherwise)
        ]
        yield from local_tests(module, function, name, carried, tree, carriers, depth, after=end)
        for compared in compared_loads(module.local_bindings(function), name):
            if compared.lineno > end:
                yield from uses(module, compared, carried, tree, carriers, depth + 1)
    # A local one side empties where the test itself needs it true (``if not (layers and
    # wanted): layers = []``): its tests further on (``if layers:``).
    for side, holds in ((statement.body, True), (statement.orelse, False)):
        for name in emptied(side, statement.test):
            carried = _set_by(deciding[1], holds, EMPTY, AN_OBJECT)
            yield from local_tests(
                module, function, name, carried, tree, carriers, depth, after=end
            )
    # A local one side sets to None and the other may bind to an object (``obj = None`` /
    # ``obj = Fused(...)``): its tests (``obj is None``) further on, and where it goes.
    for cleared, built, holds in (
        (statement.body, statement.orelse, True),
        (statement.orelse, statement.body, False),
    ):
        for name in nones_set(cleared, built):
            objects = _set_by(deciding[1], holds, None, AN_OBJECT)
            yield from local_tests(
                module, function, name, objects, tree, carriers, depth, after=end
            )
    if depth >= MAX_CARRY + 2:
        return
    # A flag stored on an object (``self.use_x = True``, ``mlp._enable_x = True``): where
    # the body leaves, the statements after the ``if`` are the other side.
    rest: Sequence[ast.stmt] = statement.orelse or (
        module.after(statement) if leaves(statement.body) else ()
    )
    for block, holds in ((statement.body, True), (rest, False)):
        for (holder, attr), value in attributes_set(block).items():
            carried = _set_by(deciding[1], holds, value, not value)
            for user, load in flag_loads(module, statement, holder, attr, tree, carriers):
                yield from uses(user, load, carried, tree, carriers, depth + 1)
        # an Event of the object set or cleared (``self._stop.set()``): its ``.is_set()``
        for attr, value in events_set(module, block).items():
            carried = _set_by(deciding[1], holds, value, not value)
            for user, test in event_tests(module, statement, attr, tree, carriers):
                yield from uses(user, test, carried, tree, carriers, depth + 1)


def _module_flag_tests(
    module: Module,
    statement: ast.If,
    deciding: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """A module-level ``if`` one side of which sets a module-level flag the module set to
    the other constant before (scanner.reach.module_flags): the tests of its loads."""
    if not any(node is statement for node in module.tree.body):
        return
    for assignment, value, holds in module_flags_set(module.tree.body, statement):
        name = assignment.targets[0]
        assert isinstance(name, ast.Name)
        carried = _set_by(deciding, holds, value, not value)
        for user, load in _global_loads(module, name.id, assignment, carriers, tree):
            yield from uses(user, load, carried, tree, carriers, depth + 1)


def _set_by(
    held: Sequence[tuple[str | None, Outcome]], side: bool, there: Outcome, otherwise: Outcome
) -> list[tuple[str | None, Outcome]]:
    """What a name holds under each value: ``there`` where the side that sets it runs (the
    test holds as ``side``), ``otherwise`` where the other side runs."""
    return [(v, there if truth is side else otherwise) for v, truth in held]


def _deciding(
    module: Module,
    node: ast.AST,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> tuple[ast.expr, list[tuple[str | None, Outcome]]] | None:
    """A boolean expression the carrier decides (``envs.X and has_kernel()``), returned or
    stored: its truth under each outcome, for the choice of the rest of it that lets the
    carrier decide (the rest as a caller's test would find it when it matters)."""
    if isinstance(node, ast.Call) and _bool_of(node):
        tested = node.args[0]  # bool(x): as x holds
    elif isinstance(node, ast.BoolOp | ast.UnaryOp | ast.Compare | ast.IfExp) or (
        node is carrier and isinstance(node, ast.expr)
    ):
        tested = node  # ``if os.environ.get(N): return False``: the value's truth
    else:
        return None
    names = names_around(module, node)
    found = [(v, truths(tested, _is(carrier), o, names)) for v, o in outcomes]
    if any(v is None and t is None for v, t in found):
        return None  # the value with the variable unset is not known
    found = [(v, t) for v, t in found if t is not None]
    rows = [t for _, t in found if t is not None]
    if not rows:
        return None
    deciding = next((i for i in range(len(rows[0])) if len({r[i] for r in rows}) > 1), None)
    if deciding is None:
        return None
    return node, [(v, t[deciding]) for v, t in found if t is not None]


def _bool_of(node: ast.Call) -> bool:
    """Whether ``node`` is ``bool(x)`` of one expression (``return bool(envs.X and y)``)."""
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "bool"
        and len(node.args) == 1
        and not node.keywords
    )


def _is(carrier: ast.expr) -> IsCarrier:
    """The test for the carrier node itself."""
    return lambda node: node is carrier


def _bound(
    module: Module,
    statement: ast.Assign | ast.AnnAssign,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
) -> Iterator[Branch]:
    """A carried value bound to a local (its tests in the function) or to ``self.X`` (the
    uses of ``self.X`` in the class's methods, followed as the value itself)."""
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
    if isinstance(target, ast.Name):
        function = module.function_node_around(statement)
        # ``if requested == "native_torch": return "native_torch"`` ... ``return "grouped_mm"``:
        # what the function returns under each value, to its callers' tests of it
        picked = (
            returned_by_value(module, statement, target.id, outcomes)
            if function is not None and depth < MAX_CARRY and not choices
            else None
        )
        name = module.function_around(statement) if picked is not None else None
        if picked is not None and name is not None:
            carriers.want([(module.name, name[len(module.name) + 1 :].split(".", 1)[0])])
            yield from returned_branches(module, name, picked, tree, carriers, depth + 1)
        if function is not None:
            yield from local_tests(
                module,
                function,
                target.id,
                outcomes,
                tree,
                carriers,
                depth,
                choices=choices,
                returns=name is None,
            )
        elif (
            depth < MAX_CARRY + 2
            and target.id in module.globals
            and not isinstance(statement.value, ast.BoolOp)
        ):
            # ``_X = read and _is_hip`` holds the machine's answer too: not followed
            # (sglang srt/models/qwen3_5.py:177-182 -> :1433, where what runs instead,
            # ``self.q_norm(...)``, calls through a module the reach does not follow)
            for user, load in _global_loads(module, target.id, statement, carriers, tree):
                yield from uses(user, load, outcomes, tree, carriers, depth + 1, choices=choices)
    elif (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        owner = module.owner_class(statement)
        if owner is None or depth >= MAX_CARRY + 2:
            return
        for load in module.attribute_loads(target.attr):
            if module.owner_class(load) == owner:
                yield from uses(module, load, outcomes, tree, carriers, depth + 1, choices=choices)
        # ``get_config().X`` elsewhere, where an accessor returns the module's one instance
        for user, field_load in accessed_loads(module, owner, target.attr, tree, carriers):
            yield from uses(user, field_load, outcomes, tree, carriers, depth + 1, choices=choices)
    elif isinstance(target, ast.Attribute) and (
        depth == 0 or module.function_node_around(statement) is None
    ):
        # ``model_cfg.compile_cfg = read`` in a config file, or the read's own value stored
        # in a function: the reads of that field
        yield from _field_reads(target.attr, outcomes, tree, carriers, depth, choices)
    elif depth < MAX_CARRY + 2 and (held := slot(module, target)) is not None:
        # ``_STATE["enabled"] = ...``: the reads of that slot of the module's dict
        for read in slot_loads(module, *held, statement):
            yield from uses(module, read, outcomes, tree, carriers, depth + 1, choices=choices)
    elif (
        isinstance(target, ast.Subscript)
        and (key := splatted_key(module, target.value, target.slice, statement)) is not None
    ):
        # ``kwargs["enable_x"] = v`` then ``Args(**kwargs)``: the reads of the field
        yield from _field_reads(key, outcomes, tree, carriers, depth, choices)


def _dict_value(
    module: Module,
    display: ast.Dict,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
) -> Iterator[Branch]:
    """The carried value under a constant key of a dict bound to a local
    (``kwargs = {"enable_x": v}``), which the function hands on as a call's keywords
    (``Args(**kwargs)``): the reads of that field."""
    statement = module.parent(display)
    if not (isinstance(statement, ast.Assign) and assigns(statement, display)):
        return
    key = next((k for k, v in zip(display.keys, display.values, strict=True) if v is carrier), None)
    field = splatted_key(module, statement.targets[0], key, statement)
    if field is not None:
        yield from _field_reads(field, outcomes, tree, carriers, depth, choices)


def _global_loads(
    module: Module, name: str, statement: ast.stmt, carriers: Carriers, tree: Tree
) -> Iterator[tuple[Module, ast.Name | ast.Attribute]]:
    """The loads of the module-level name ``statement`` binds (``_MIN_K = {...}.get(_X,
    8)``, then ``if top_k >= _MIN_K``), in its module and the modules that import it."""
    if _bound_apart(module, name, statement):
        return
    carriers.want([(module.name, name)])
    for user, load in name_loads(module, name, tree, carriers):
        if user is not module or load.lineno > statement.lineno:
            yield user, load


def name_loads(
    module: Module,
    name: str,
    tree: Tree,
    carriers: Carriers,
    qualified: tuple[str, str] | None = None,
    seen: tuple[str, ...] = (),
) -> Iterator[tuple[Module, ast.Name | ast.Attribute]]:
    """The loads of ``module``'s module-level ``name``, in it and in the modules that
    import it, from it or from a package that imports it into its ``__init__``;
    ``qualified``: what the loads resolve to and the name the modules that import it name,
    where that is not ``name`` itself (an attribute of a class: ``C.x``, ``C``); ``seen``:
    the packages followed so far."""
    carried, searched = qualified or (module.qualified(name), name)
    exported: list[Module] = []
    for rel in carriers.modules_naming(module, searched):
        user = tree.module(rel)
        if user is None:
            continue
        for load in user.loads_named(name):
            if user.resolve(load, user.owner_class(load)) == carried:
                yield user, load
        if qualified is None and _reexports(user, name, carried, seen):
            exported.append(user)
    for package in exported:
        seen = (*seen, package.rel)
        yield from name_loads(package, name, tree, carriers, seen=seen)


def _reexports(user: Module, name: str, carried: str, seen: tuple[str, ...]) -> bool:
    """Whether a package's ``__init__`` imports ``name`` (``carried``) into its own
    namespace, for the modules that import it from the package (xtuner b934f46
    xtuner/v1/utils/__init__.py:11-12 ``from .misc import XTUNER_DETERMINISTIC``, read as
    ``from xtuner.v1.utils import XTUNER_DETERMINISTIC`` in train/trainer.py:60, :1491)."""
    return (
        user.rel.endswith("__init__.py")
        and user.rel not in seen
        and user.imports.get(name) == carried
    )


def _bound_apart(module: Module, name: str, statement: ast.stmt) -> bool:
    """Whether the module binds ``name`` elsewhere on a path that ``statement`` is not on
    (the other side of a module-level ``if``, an ``except``): there, the name holds what
    that binding gives, whatever the variable (ROCm/aiter ops/triton/attention/
    pa_mqa_logits.py:61,77 bind ``enable_gluon_pa_mqa_logits`` per Triton version)."""
    mine = list(module.ancestors(statement))
    for other in module.tree.body:
        for node in walk(other):
            if node is statement or not isinstance(node, ast.Assign | ast.AnnAssign):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
                continue
            if module.function_node_around(node) is not None:
                continue
            if _apart(mine, statement, list(module.ancestors(node)), node):
                return True
    return False


def _apart(mine: list[ast.AST], statement: ast.AST, theirs: list[ast.AST], other: ast.AST) -> bool:
    """Whether two statements sit in different blocks of their innermost common ``if`` or
    ``try``, other than a binding in the handler of a failed import (``scanner.reach.
    import_fallbacks``)."""
    common = next((a for a in mine if any(a is b for b in theirs)), None)
    if not isinstance(common, ast.If | ast.Try) or import_fallback(common, statement, other):
        return False
    return _block(common, statement) != _block(common, other)


def _block(compound: ast.If | ast.Try, node: ast.AST) -> str:
    """The field of ``compound`` whose statements hold ``node``."""
    for field in ("body", "orelse", "handlers", "finalbody"):
        for child in getattr(compound, field, ()):
            if any(n is node for n in walk(child)):
                return field
    return ""


def module_name_tests(
    module: Module,
    statement: ast.Assign | ast.AnnAssign,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """A carried value bound to a module-level name (``_FAST = HAS_LIB and envs.X``): the
    tests of the name's loads, in its module and in the modules that import it."""
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
    if (
        not isinstance(target, ast.Name)
        or module.function_node_around(statement) is not None
        or module.owner_class(statement) is not None
    ):
        return
    for user, load in name_loads(module, target.id, tree, carriers):
        yield from uses(user, load, outcomes, tree, carriers, depth)


def _cache_cell(
    module: Module,
    statement: ast.Assign | ast.AnnAssign,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """A carried value kept in a cell of a module-level container and returned from it by
    the same function (``_ON[0] = envs.X`` ... ``return _ON[0]``): its callers' tests."""
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
    if (
        not isinstance(target, ast.Subscript)
        or not isinstance(target.value, ast.Name)
        or target.value.id not in module.globals
        or depth >= MAX_CARRY
    ):
        return
    function = module.function_node_around(statement)
    name = module.function_around(statement)
    if function is None or name is None or target.value.id in module.local_bindings(function):
        return
    cell = ast.dump(target, annotate_fields=False).replace("Store()", "Load()")
    if not any(ast.dump(r, annotate_fields=False) == cell for r in _returns(function)):
        return
    carriers.want([(module.name, name[len(module.name) + 1 :].split(".", 1)[0])])
    yield from returned_branches(module, name, outcomes, tree, carriers, depth + 1)


def _returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.expr]:
    """What ``function``'s own returns return (nested functions left out)."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            yield node.value
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(children(node))


def _handed_flags(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    after: int,
) -> Iterator[Branch]:
    """The local handed on as ``deterministic=`` in a call, or stored under that key of
    the kwargs a call gets (``flash_kwargs["deterministic"] = deterministic``), wherever
    the call's result goes (a return's are ``uses``')."""
    for call, key in module.arguments_passing(function).get(name, ()):
        if call.lineno <= after or key not in DETERMINISTIC_FLAGS:
            continue
        for keyword in call.keywords:
            if keyword.arg == key and isinstance(keyword.value, ast.Name):
                flag = handed_as_flag(module, keyword, keyword.value, outcomes)
                if flag is not None and not _returned_by(module, call):
                    yield flag
    stored = module.keyed_stores(function)
    for statement in (s for key in sorted(DETERMINISTIC_FLAGS) for s in stored.get(key, ())):
        if (
            statement.lineno > after
            and isinstance(statement.value, ast.Name)
            and statement.value.id == name
        ):
            flag = handed_as_flag(module, statement, statement.value, outcomes)
            if flag is not None:
                yield flag


def _returned_by(module: Module, call: ast.Call) -> bool:
    """Whether ``call`` sits in a return (``uses`` follows those from the return)."""
    return any(isinstance(outer, ast.Return) for outer in module.ancestors(call))


def local_tests(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    *,
    choices: bool = False,
    after: int = 0,
    back: Back = (),
    returns: bool = True,
) -> Iterator[Branch]:
    """The tests of the local ``name`` in ``function`` (after line ``after``), which holds
    the carried value, and, where it is handed to a function of the tree as an argument
    (``decode(..., enable_lean=enable_lean)``), the tests of that parameter there.
    ``back``: the calls the value was handed into, which its returns go back to.
    ``returns``: what the function returns is followed here (not where the caller
    followed it under each value, ``scanner.reach.picked_returns.returned_by_value``)."""
    for test in module.tests_naming(function).get(name, ()):
        if back and _gives_back(module, test, name):
            continue  # what it decides is what the call gives back, followed there
        if test.lineno > after:
            yield from decided(module, test, named(name), outcomes, choices=choices)
            yield from _predicate(module, test, name, outcomes, tree, carriers, depth)
            loads = [n for n in walk(test) if isinstance(n, ast.Name) and n.id == name]
            if len(loads) == 1 and returns:
                yield from _picked(module, test, loads[0], outcomes, tree, carriers, depth)
    if returns:
        yield from _returned(
            module, function, name, outcomes, tree, carriers, depth, choices, after, back
        )
    yield from _handed_flags(module, function, name, outcomes, after)
    yield from modes_handed(module, function, name, outcomes, tree, after)
    if depth >= MAX_CARRY + 2:
        return
    yield from _kept(module, function, name, outcomes, tree, carriers, depth, choices, after)
    # ``do_fused = (unified and (is_decode or name)) or other``: the tests of that local.
    for load in combined_loads(module.local_bindings(function), name):
        if load.lineno > after:
            yield from uses(module, load, outcomes, tree, carriers, depth + 1, choices=choices)
    # ``_STATE["enabled"] = ok and name not in OFF``: the slot's reads, through ``_bound``.
    for load in filled_with(module, function, name):
        if load.lineno > after:
            yield from uses(module, load, outcomes, tree, carriers, depth, choices=choices)
    for call, key in module.arguments_passing(function).get(name, ()):
        if call.lineno <= after:
            continue
        # the read's own value put in a config the function builds
        # (``CompileConfig(enabled=enable_compile)``): the tests of that field
        made = _constructs(module, call, tree) if depth == 0 and _lands(call, key) else None
        if made is not None:
            handed = (module, call)
            yield from _in_field(made, key, handed, outcomes, tree, carriers, depth, choices)
        else:
            yield from _in_callee(module, call, key, outcomes, tree, carriers, depth + 1, choices)


def _gives_back(module: Module, test: ast.expr, name: str) -> bool:
    """Whether ``test`` guards the return of the local ``name`` itself (``if use_direct is not
    None: return use_direct``)."""
    statement = module.parent(test)
    return (
        isinstance(statement, ast.If)
        and statement.test is test
        and len(statement.body) == 1
        and isinstance(statement.body[0], ast.Return)
        and isinstance(statement.body[0].value, ast.Name)
        and statement.body[0].value.id == name
    )


def _returned(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
    after: int = 0,
    back: Back = (),
) -> Iterator[Branch]:
    """The returns of the local ``name`` (or of a value it decides), followed on."""
    for returned in returns_naming(function, name):
        if returned.lineno > after:
            # the values under which the return runs (``if env in ("0", "1"): return ...``)
            held = reaching(module, returned, name, outcomes)
            unset = () if choices else fallen_through(module, function, name, outcomes, held)
            yield from uses(
                module,
                returned,
                held,
                tree,
                carriers,
                depth,
                choices=choices,
                unset=unset,
                back=back,
            )


def _handed(
    module: Module,
    outer: ast.Call | ast.keyword,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
    back: Back = (),
) -> Iterator[Branch]:
    """The carried value handed to a function of the tree as an argument
    (``resolve_kda_backend(self.backend_name)``, ``build(kind=self.kind)``): the tests of
    that parameter there, and, where the function gives it back (``if use_direct is not
    None: return use_direct``, vllm 0.33.0 v1/attention/ops/cp_common.py:60-70), the uses
    of the call's value. Handed on again from there, only what is given back is followed."""
    if len(back) >= MAX_BACK or (depth >= MAX_CARRY + 2 and not back):
        return
    key: str | int | None
    if isinstance(outer, ast.keyword):
        call = module.locate.parent(outer)
        key = outer.arg
    else:
        call = outer
        key = next((i for i, a in enumerate(outer.args) if a is carrier), None)
    if not isinstance(call, ast.Call) or key is None:
        return
    if any(isinstance(a, ast.Starred) for a in call.args[: key if isinstance(key, int) else 0]):
        return  # ``f(*rest, x)``: where x lands is not known
    # a config file's ``ModelConfig(key=read)``, in code no function holds, or the read's own
    # value put in a config a function builds (``CompileConfig(enabled=enable_compile)``)
    top = not back and (depth == 0 or module.function_node_around(call) is None)
    made = _constructs(module, call, tree) if top else None
    if made is not None:
        handed = (module, call)
        yield from _in_field(made, key, handed, outcomes, tree, carriers, depth, choices)
        return
    # The callee's own tests only: where it hands the value on again is not followed (a
    # value handed down every call of a large tree is weighed at every test it meets).
    given = (*back, (module, call, depth))
    yield from _in_callee(
        module, call, key, outcomes, tree, carriers, MAX_CARRY + 2, choices, given, not back
    )


def _in_field(
    made: tuple[Module, str],
    key: str | int,
    handed: tuple[Module, ast.Call],
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
) -> Iterator[Branch]:
    """The carried value handed as argument ``key`` (a keyword or a position) to the
    constructor of the tree's class ``made`` (by ``handed``, the call and its module): the
    tests of the field it lands in."""
    init = made[0].definitions.get(f"{made[1]}.__init__")
    name = _parameter(init, key, True) if isinstance(init, ast.FunctionDef) else None
    if name is None and isinstance(key, int):
        return  # a position of a class with no ``__init__`` of its own: not known
    field = name or str(key)
    if isinstance(init, ast.FunctionDef) and name and not _kept_as_is(init, name):
        # ``self.fold = bool(fold) and other``: what the field holds is the constructor's
        yield from local_tests(
            made[0], init, name, outcomes, tree, carriers, MAX_CARRY + 2, choices=choices
        )
    elif KEY.match(field):
        # ``ModelConfig(compile_cfg=read)``: a field of an object of the tree's class,
        # read wherever the object goes
        yield from _field_reads(field, outcomes, tree, carriers, depth, choices)
    elif depth < MAX_CARRY + 2 and (name or _declared(made, field)):
        # ``PunicaWrapper(enabled=read)``: a name many classes' fields have, so only the
        # reads of this class's instances (scanner.reach.instance_fields)
        via = _field_via(made, field, init, handed)
        for user, read in instance_reads(made, field, tree, carriers):
            for branch in uses(user, read, outcomes, tree, carriers, depth + 1, choices=choices):
                yield branch if branch.via else replace(branch, via=via)


def _field_via(
    made: tuple[Module, str], field: str, init: ast.AST | None, handed: tuple[Module, ast.Call]
) -> str:
    """How a value handed to a constructor comes to a test of its field, as evidence says
    it: the field, the class, where the value is handed in and where the class keeps it."""
    module, cls = made
    node = init if isinstance(init, ast.FunctionDef) else module.definitions.get(cls)
    nodes = walk(node) if node is not None else iter(())
    binding = [n for n in nodes if isinstance(n, ast.stmt) and _binds(n, field)]
    kept = min((n.lineno for n in binding), default=None)
    where = f", kept at {module.rel}:{kept}" if kept is not None else ""
    caller, call = handed
    return f"the field `{field}` of {cls}, handed in at {caller.rel}:{call.lineno}{where}"


def _binds(node: ast.stmt, field: str) -> bool:
    """Whether ``node`` binds ``self.field`` (or, in a class body, declares ``field``)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    else:
        return False
    return any(
        (isinstance(t, ast.Attribute) and t.attr == field and isinstance(t.value, ast.Name))
        or (isinstance(t, ast.Name) and t.id == field)
        for t in targets
    )


def _in_callee(
    module: Module,
    call: ast.Call,
    key: str | int,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
    back: Back = (),
    tests: bool = True,
) -> Iterator[Branch]:
    """The tests of the parameter of the tree's function ``call`` calls that the argument
    ``key`` (a position or a keyword) lands in; ``back``: the calls its returns go back to;
    ``tests``: false, only its returns are followed."""
    callee = _callee(module, call, tree)
    if callee is None:
        return
    target, definition = callee
    parameter = _parameter(definition, key, isinstance(call.func, ast.Attribute))
    if parameter is None:
        return
    if tests:
        yield from local_tests(
            target,
            definition,
            parameter,
            outcomes,
            tree,
            carriers,
            depth,
            choices=choices,
            back=back,
        )
    else:
        yield from _returned(
            target, definition, parameter, outcomes, tree, carriers, depth, choices, back=back
        )


def _kept(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
    after: int,
) -> Iterator[Branch]:
    """The local ``name`` kept on the object (``self.use_x = use_x`` in ``__init__``): the
    tests of ``self.use_x`` further on in the same function, as the value itself (in other
    methods the attribute may have been set again)."""
    if module.owner_class(function) is None:
        return
    for stored, attr in module.kept_on_self(function).get(name, ()):
        if stored > after:
            for load in module.attribute_loads(attr):
                if load.lineno > stored and module.function_node_around(load) is function:
                    yield from uses(
                        module, load, outcomes, tree, carriers, depth + 1, choices=choices
                    )


def _constructs(module: Module, call: ast.Call, tree: Tree) -> tuple[Module, str] | None:
    """The module and name of the tree's class ``call`` makes an instance of, or None."""
    split = _defined_at(module, call.func, call, tree)
    if split is None or not isinstance(split[0].definitions.get(split[1]), ast.ClassDef):
        return None
    return split


def _defined_at(
    module: Module, func: ast.expr, call: ast.Call, tree: Tree
) -> tuple[Module, str] | None:
    """The module of the tree that defines what ``func`` (called by ``call``) names, and
    its name there; None where it is no definition of the tree."""
    dotted = module.resolve(func, module.owner_class(call))
    return tree.split(tree.reexported(dotted)) if dotted is not None else None


def _kept_as_is(init: ast.FunctionDef, key: str) -> bool:
    """Whether ``__init__`` keeps its parameter ``key`` as the field (``self.key = key``)."""
    return any(
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Name)
        and node.value.id == key
        and any(
            isinstance(t, ast.Attribute)
            and t.attr == key
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
            for t in node.targets
        )
        for node in walk(init)
    )


def _lands(call: ast.Call, key: str | int) -> bool:
    """Whether the argument at ``key`` lands where its position says (no ``*rest`` before)."""
    before = call.args[:key] if isinstance(key, int) else ()
    return not any(isinstance(a, ast.Starred) for a in before)


def _declared(made: tuple[Module, str], field: str) -> bool:
    """Whether the class body declares ``field`` (``enabled: bool``, a dataclass's field)."""
    node = made[0].definitions.get(made[1])
    return isinstance(node, ast.ClassDef) and any(
        isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == field
        for s in node.body
    )


def _field_reads(
    key: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
) -> Iterator[Branch]:
    """The uses of the reads of field ``key`` of an object the carried value is put in,
    wherever the tree reads that field (``scanner.reach.key_reads``)."""
    if depth >= MAX_CARRY + 2 or not KEY.match(key):
        return
    for user, read in key_reads(key, tree, carriers) or []:
        yield from uses(user, read, outcomes, tree, carriers, depth + 1, choices=choices)
    # ``Attention(**self.model_dump())`` in the class that declares the field: the
    # parameter it lands in (scanner.reach.splatted_fields)
    for made, init, via in splatted_fields(key, tree, carriers):
        for branch in local_tests(
            made, init, key, outcomes, tree, carriers, depth + 1, choices=choices
        ):
            yield branch if branch.via else replace(branch, via=via)


def _callee(
    module: Module, call: ast.Call, tree: Tree
) -> tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The function of the tree a call calls, and its module; a Triton kernel's launch
    (``kernel[grid](...)``) calls the kernel."""
    split = _defined_at(module, called(call), call, tree)
    if split is not None:
        target, local = split
        definition = target.definitions.get(local)
        if isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
            return target, definition
    return bound_function(module, call, tree)


def _parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef, key: str | int, bound: bool
) -> str | None:
    """The parameter an argument lands in: by name, or by position (past ``self`` for a
    method called through an object)."""
    arguments = function.args
    if isinstance(key, str):
        names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
        return key if key in names else None
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if bound and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    return positional[key] if key < len(positional) else None
