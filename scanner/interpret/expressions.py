"""Expression evaluation for the evaluator: one small handler per libcst node type."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst

from scanner.accessors import ENVIRON
from scanner.interpret import calls, descriptors
from scanner.interpret import operations as ops
from scanner.interpret.frames import Frame
from scanner.interpret.objects import Closure, Instance
from scanner.interpret.values import ENVIRON_COPY, RAISED, UNKNOWN, V, derived, truthiness
from scanner.syntax.reads import contains_environ, subscript_name
from scanner.syntax.symbols import qualify
from scanner.syntax.walk import children, nodes

if TYPE_CHECKING:
    from scanner.interpret.evaluate import Evaluator

Handler = Callable[["Evaluator", cst.BaseExpression, Frame], V]
_CONSTANT_NAMES: dict[str, object] = {"True": True, "False": False, "None": None}
MAX_ITEMS = 256  # the most items a comprehension or loop over known data is run for


def evaluate_expression(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    """The value of ``node`` in ``frame``; UNKNOWN for forms the evaluator does not model
    (whose parts are still evaluated when the read under study is inside them)."""
    handler = _HANDLERS.get(type(node))
    if handler is not None:
        return handler(ev, node, frame)
    if id(node) in ev.probe.target:
        parts = [ev.expr(child, frame) for child in _expressions_in(node)]
        return derived(UNKNOWN, *parts)
    return V(value=UNKNOWN)


def _expressions_in(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The outermost expressions below ``node``."""
    for child in children(node):
        if isinstance(child, cst.BaseExpression):
            yield child
        else:
            yield from _expressions_in(child)


def _simple_string(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.SimpleString)
    return V(value=_literal(node.value))


@lru_cache(maxsize=16384)
def _literal(raw: str) -> object:
    """The value of a string literal's source text, without ``eval`` where it is plain."""
    quote_at = min(i for i in (raw.find("'"), raw.find('"')) if i >= 0)
    prefix = raw[:quote_at].lower()
    width = 3 if raw[quote_at : quote_at + 3] in ('"""', "'''") else 1
    body = raw[quote_at + width : len(raw) - width]
    if "b" not in prefix and ("r" in prefix or "\\" not in body):
        return body
    if "b" not in prefix:
        try:  # escapes, decoded the way the tokenizer does, without compiling
            return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
        except UnicodeDecodeError:
            pass
    return ast.literal_eval(raw)


def _number(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Integer | cst.Float)
    return V(value=_number_literal(node.value))


@lru_cache(maxsize=16384)
def _number_literal(raw: str) -> object:
    """The value of a number literal's source text (libcst's ``evaluated_value`` compiles
    the text each time it is asked: thousands of times a probe in a large function)."""
    return ast.literal_eval(raw)


def _concatenated(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.ConcatenatedString)
    left, right = ev.expr(node.left, frame), ev.expr(node.right, frame)
    if left.plain and right.plain:
        return derived(ops.binary(cst.Add(), left.value, right.value), left, right)
    return derived(UNKNOWN, left, right)


def _formatted(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.FormattedString)
    pieces: list[str] = []
    sources: list[V] = []
    known = True
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            pieces.append(part.value.replace("{{", "{").replace("}}", "}"))
            continue
        assert isinstance(part, cst.FormattedStringExpression)
        value = ev.expr(part.expression, frame)
        sources.append(value)
        ev.note_passed([value])
        spec = "".join(
            p.value for p in part.format_spec or () if isinstance(p, cst.FormattedStringText)
        )
        if not value.plain or any(
            isinstance(p, cst.FormattedStringExpression) for p in part.format_spec or ()
        ):
            known = False
            continue
        converted: object = value.value
        if part.conversion == "r":
            converted = repr(converted)
        elif part.conversion == "a":
            converted = ascii(converted)
        elif part.conversion == "s":
            converted = str(converted)
        try:
            pieces.append(format(converted, spec))
        except Exception:
            known = False
    return derived("".join(pieces) if known else UNKNOWN, *sources)


def _name(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Name)
    name = node.value
    if name in _CONSTANT_NAMES:
        return V(value=_CONSTANT_NAMES[name])
    local = frame.lookup(name)
    if local is not None:
        return local
    return ev.global_value(name, frame)


def _collection(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Tuple | cst.List | cst.Set)
    values: list[V] = []
    starred = False
    for element in node.elements:
        value = ev.expr(element.value, frame)
        if isinstance(element, cst.StarredElement):
            starred = True
            if value.plain and isinstance(value.value, tuple | list | frozenset | dict):
                values.extend(
                    V(value=item, env=value.env, params=value.params) for item in value.value
                )
                continue
            values.append(derived(UNKNOWN, value))
            continue
        values.append(value)
    if not all(v.known for v in values) or (starred and not all(v.plain for v in values)):
        return derived(UNKNOWN, *values)
    items = tuple(v.value for v in values)
    if isinstance(node, cst.Set):
        try:
            return derived(frozenset(items), *values)
        except TypeError:
            return derived(UNKNOWN, *values)
    return derived(items, *values)


def _dict(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Dict)
    result: dict[object, object] = {}
    sources: list[V] = []
    known = True
    for element in node.elements:
        if isinstance(element, cst.StarredDictElement):
            value = ev.expr(element.value, frame)
            sources.append(value)
            if value.plain and isinstance(value.value, dict):
                result.update(value.value)
            else:
                known = False
            continue
        assert isinstance(element, cst.DictElement)
        key, value = _entry(ev, element, frame)
        sources += [key, value]
        if key.plain and value.known:
            try:
                result[key.value] = value.value
            except TypeError:
                known = False
        else:
            known = False
    return derived(result if known else UNKNOWN, *sources)


def _entry(ev: Evaluator, element: cst.DictElement, frame: Frame) -> tuple[V, V]:
    """A dict literal's entry. In a probe, an entry away from the site that names only
    module-level things (``"X": _lazy_bool("X")`` in sglang's table of 150 factories)
    gives the same in every probe of every site of the file, unless it reads the variable
    under study: it is evaluated once (what it read and the limits it met kept with it)."""
    if ev.probe.site is None or id(element) in ev.probe.target or ev.module.shared is None:
        return ev.expr(element.key, frame), ev.expr(element.value, frame)
    found = ev.module.shared.get(("entry", id(element)))
    if found is not None and found[0] is element:
        _, key, value, names, limits = found
        if ev.probe.knob not in names:
            ev.seen.names.extend(V(value=n) for n in names)
            ev.seen.limits.extend(limits)
            return key, value
    if not _module_level(ev, element, frame):
        return ev.expr(element.key, frame), ev.expr(element.value, frame)
    read, limits = len(ev.seen.names), len(ev.seen.limits)
    key, value = ev.expr(element.key, frame), ev.expr(element.value, frame)
    names = [n.value for n in ev.seen.names[read:]]
    if (
        all(isinstance(n, str) for n in names)
        and ev.probe.knob not in names
        and not (key.env or value.env or key.site or value.site)
    ):
        entry = (element, key, value, tuple(names), tuple(ev.seen.limits[limits:]))
        ev.module.shared[("entry", id(element))] = entry
    return key, value


def _module_level(ev: Evaluator, element: cst.DictElement, frame: Frame) -> bool:
    """Whether an entry names no local of ``frame`` and no probed module-level name."""
    return all(
        frame.lookup(n.value) is None and n.value not in ev.probe.overrides
        for n in walk_names(element)
    )


def walk_names(node: cst.CSTNode) -> Iterator[cst.Name]:
    for child in nodes(node):
        if isinstance(child, cst.Name):
            yield child


def _comprehension(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp)
    inner = Frame(
        frame.symbols,
        {},
        depth=frame.depth,
        method_class=frame.method_class,
        parent=frame,
        qualname=frame.qualname,
        owner=frame.owner,
    )
    produced: list[V] = []
    sources: list[V] = []
    complete = _run_clauses(ev, node, node.for_in, inner, produced, sources)
    values = [v for v in produced if v.known]
    if not complete or len(values) != len(produced):
        return derived(UNKNOWN, *sources, *produced)
    if isinstance(node, cst.DictComp):
        pairs = [v.value for v in values]
        try:
            return derived(dict(pairs), *sources, *produced)  # type: ignore[arg-type]
        except TypeError:
            return derived(UNKNOWN, *sources, *produced)
    items = tuple(v.value for v in values)
    if isinstance(node, cst.SetComp):
        try:
            return derived(frozenset(items), *sources, *produced)
        except TypeError:
            return derived(UNKNOWN, *sources, *produced)
    return derived(items, *sources, *produced)


def _run_clauses(
    ev: Evaluator,
    node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp,
    clause: cst.CompFor,
    frame: Frame,
    produced: list[V],
    sources: list[V],
) -> bool:
    """Run one ``for`` clause of a comprehension and those nested in it; False when an
    iterable is not known data (its element is then evaluated once, unknown)."""
    iterable = ev.expr(clause.iter, frame)
    sources.append(iterable)
    items = iterable_items(iterable)
    if items is None:
        ev.assign(clause.target, derived(UNKNOWN, iterable), frame)
        _produce(ev, node, clause, frame, produced, sources)
        return False
    complete = True
    for item in items:
        ev.assign(clause.target, V(value=item, env=iterable.env, params=iterable.params), frame)
        complete = _produce(ev, node, clause, frame, produced, sources) and complete
    return complete


def _produce(
    ev: Evaluator,
    node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp,
    clause: cst.CompFor,
    frame: Frame,
    produced: list[V],
    sources: list[V],
) -> bool:
    for condition in clause.ifs:
        test = truthiness(ev.expr(condition.test, frame))
        sources.append(test)
        if test.known and not test.value:
            return True
        if not test.known:
            return False
    if clause.inner_for_in is not None:
        return _run_clauses(ev, node, clause.inner_for_in, frame, produced, sources)
    if isinstance(node, cst.DictComp):
        key, value = ev.expr(node.key, frame), ev.expr(node.value, frame)
        known = key.known and value.known
        produced.append(derived((key.value, value.value) if known else UNKNOWN, key, value))
    else:
        produced.append(ev.expr(node.elt, frame))
    return True


def iterable_items(value: V) -> tuple[object, ...] | None:
    """The items a ``for`` over ``value`` yields, when it is known data of a bounded size."""
    if not value.plain:
        return None
    data = value.value
    if isinstance(data, str | tuple | list | dict | frozenset):
        items = tuple(sorted(data, key=repr)) if isinstance(data, frozenset) else tuple(data)
        return items if len(items) <= MAX_ITEMS else None
    return None


def _comparison(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Comparison)
    first: V | None = None
    if contains_environ(node, lambda n: qualify(frame.symbols, n, frame.scope_names)):
        first = V(value=ENVIRON_COPY)
    reads = ev.reads
    before = reads.count
    left = ev.expr(node.left, frame)
    sides = [reads.operand(node.left, left, before)]
    before = reads.count
    if first is None and isinstance(node.comparisons[0].operator, cst.In | cst.NotIn):
        first = ev.expr(node.comparisons[0].comparator, frame)
    if first is not None and first.value is ENVIRON_COPY and len(node.comparisons) == 1:
        present = ev.read(left, V(value=None), "contains")
        if isinstance(node.comparisons[0].operator, cst.NotIn) and present.known:
            return derived(not present.value, present)
        return present
    sources = [left]
    result: object = True
    for position, target in enumerate(node.comparisons):
        right = first if position == 0 and first is not None else ev.expr(target.comparator, frame)
        if position == 0:
            sides.append(reads.operand(target.comparator, right, before))
        sources.append(right)
        ev.note_numeric(left, right, comparison=True)
        if left.raised or right.raised:
            return derived(RAISED, *sources)
        identity = isinstance(target.operator, cst.Is | cst.IsNot)
        if not (left.known and right.known) or not (identity or (left.plain and right.plain)):
            return derived(UNKNOWN, *sources)
        result = ops.compare(target.operator, left.value, right.value)
        if len(node.comparisons) == 1:
            reads.comparison(target.operator, (sides[0], sides[1]), (left, right), result)
        if result is UNKNOWN or not result:
            break
        left = right
    outcome = derived(result, *sources)
    if outcome.site and outcome.known and frame.depth == 0:
        ev.seen.comparisons.append(outcome)
    return outcome


def _boolean(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.BooleanOperation)
    left = ev.expr(node.left, frame)
    truth = truthiness(left)
    _side(ev, node.left, truth)
    is_and = isinstance(node.operator, cst.And)
    if truth.known:
        decided = bool(truth.value) != is_and  # `False and _` / `True or _`: the left side
        if decided and (truth.env or id(node.right) not in ev.probe.target):
            return left
        # Otherwise the right side runs (it holds the read under study: judged as reached).
        right = ev.expr(node.right, frame)
        if truth.site and _decides_by_assumption(right, is_and):
            # ``"A" not in os.environ or "B" not in os.environ``: B, taken as unset, would
            # make the test true whatever A holds. Taken the way that lets A decide, as a
            # left side that skips the site is (above).
            return left
        _side(ev, node.right, truthiness(right))
        return derived(right.value, left, right)
    right = ev.expr(node.right, frame)
    _side(ev, node.right, truthiness(right))
    return derived(UNKNOWN, left, right)


def _side(ev: Evaluator, side: cst.BaseExpression, truth: V) -> None:
    """Keep the truth of a side of ``and``/``or`` that the site's value decides, for the
    branch test around it (``Evaluator.test``)."""
    if truth.site and truth.known:
        ev.operands[id(side)] = truth


def _decides_by_assumption(right: V, is_and: bool) -> bool:
    """Whether the right side of ``and`` (false) or ``or`` (true) decides the whole only
    through another variable the scanner takes as unset."""
    if not right.assumed or right.env:
        return False
    truth = truthiness(right)
    return truth.known and bool(truth.value) != is_and


def _unary(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.UnaryOperation)
    operand = ev.expr(node.expression, frame)
    if isinstance(node.operator, cst.Not):
        truth = truthiness(operand)
        return derived(not truth.value, truth) if truth.known else truth
    if not operand.plain:
        return derived(UNKNOWN, operand) if operand.known else operand
    return derived(ops.unary(node.operator, operand.value), operand)


def _binary(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.BinaryOperation)
    left, right = ev.expr(node.left, frame), ev.expr(node.right, frame)
    if left.raised or right.raised:
        return derived(left.value if left.raised else right.value, left, right)
    ev.note_numeric(left, right, comparison=False)
    if not (left.plain and right.plain):
        return derived(UNKNOWN, left, right)
    return derived(ops.binary(node.operator, left.value, right.value), left, right)


def _if_expression(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.IfExp)
    test = ev.test(node.test, frame)
    if test.known:
        branch = node.body if test.value else node.orelse
        other = node.orelse if test.value else node.body
        if not test.env and id(other) in ev.probe.target:
            branch = other  # the read under study is in the other branch: judge it as reached
        chosen = ev.expr(branch, frame)
        # As after an ``if`` statement: the branch taken depends on the test, the value in
        # it is the branch's own (``2.0 if on else 1.0`` is no number read from the site).
        return replace(derived(chosen.value, test, chosen), site=chosen.site)
    for branch in (node.body, node.orelse):
        if id(branch) in ev.probe.target:  # the read under study is there: judged as reached
            return derived(UNKNOWN, test, ev.expr(branch, frame))
    return derived(UNKNOWN, test)


def _subscript(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Subscript)
    key = subscript_name(node)
    if key is not None and qualify(frame.symbols, node.value, frame.scope_names) == ENVIRON:
        return ev.read(ev.expr(key, frame), V(value=None), "subscript", node=node)
    container = ev.expr(node.value, frame)
    if key is None:
        return derived(UNKNOWN, container)
    index = ev.expr(key, frame)
    if container.value is ENVIRON_COPY:
        return ev.read(index, V(value=None), "subscript", node=node)
    if container.plain and index.plain:
        return derived(ops.call(_getitem, [container.value, index.value]), container, index)
    return derived(UNKNOWN, container, index)


def _getitem(container: object, index: object) -> object:
    return container[index]  # type: ignore[index]


def _attribute(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Attribute)
    attr = node.attr.value
    base = node.value
    if isinstance(base, cst.Name) and base.value in ("self", "cls"):
        owner = frame.lookup(base.value)
        if owner is not None and isinstance(owner.value, Instance):
            return ev.instance_attribute(owner.value, attr, frame)
        found = ev.class_constant(frame.method_class, attr, frame)
        if found is not None:
            return found
    if isinstance(base, cst.Name) and frame.lookup(base.value) is None:
        classes = frame.symbols.class_constants.get(base.value)
        if classes is not None and attr in classes:
            return V(value=classes[attr])
        imported = qualify(frame.symbols, node, frame.scope_names)
        if imported is not None:
            value = ev.imported_constant(imported)
            if value is not None:
                return V(value=value)
    if ev.index.registries and isinstance(base, cst.Name | cst.Attribute):
        qualified = qualify(frame.symbols, base, frame.scope_names)
        if qualified is None and isinstance(base, cst.Name) and frame.lookup(base.value) is None:
            module = frame.symbols.module  # the registry's own module uses ``envs``
            qualified = f"{module}.{base.value}" if module else base.value
        registry = ev.index.lookup_registry(qualified) if qualified is not None else None
        if registry is not None:
            field = descriptors.field_value(ev, registry, attr, frame)
            if field is not None:
                return field
    value = ev.expr(base, frame)
    if value.known and isinstance(value.value, Instance):
        return ev.instance_attribute(value.value, attr, frame)
    return derived(UNKNOWN, value)


def _named(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.NamedExpr)
    value = ev.expr(node.value, frame)
    if isinstance(node.target, cst.Name):
        frame.assign(node.target.value, value)
    return value


def _lambda(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Lambda)
    qualname = f"{frame.qualname}.<locals>.<lambda>" if frame.qualname else "<lambda>"
    return V(value=Closure(node, frame, frame.symbols, qualname, frame.method_class))


def _call(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Call)
    return calls.evaluate_call(ev, node, frame)


_HANDLERS: dict[type[cst.BaseExpression], Handler] = {
    cst.SimpleString: _simple_string,
    cst.Integer: _number,
    cst.Float: _number,
    cst.ConcatenatedString: _concatenated,
    cst.FormattedString: _formatted,
    cst.Name: _name,
    cst.Tuple: _collection,
    cst.List: _collection,
    cst.Set: _collection,
    cst.Dict: _dict,
    cst.ListComp: _comprehension,
    cst.SetComp: _comprehension,
    cst.GeneratorExp: _comprehension,
    cst.DictComp: _comprehension,
    cst.Comparison: _comparison,
    cst.BooleanOperation: _boolean,
    cst.UnaryOperation: _unary,
    cst.BinaryOperation: _binary,
    cst.IfExp: _if_expression,
    cst.Call: _call,
    cst.Subscript: _subscript,
    cst.Attribute: _attribute,
    cst.NamedExpr: _named,
    cst.Lambda: _lambda,
}
