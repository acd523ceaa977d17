"""Expression evaluation for the evaluator: one small handler per libcst node type."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst

from scanner.accessors import ENVIRON, READ_CALLS
from scanner.interpret import operations as ops
from scanner.interpret.frames import Frame
from scanner.interpret.values import UNKNOWN, V, derived, truthiness
from scanner.syntax.reads import contains_environ, read_arguments, subscript_name
from scanner.syntax.symbols import qualify

if TYPE_CHECKING:
    from scanner.interpret.evaluate import Evaluator

Handler = Callable[["Evaluator", cst.BaseExpression, Frame], V]
_CONSTANT_NAMES: dict[str, object] = {"True": True, "False": False, "None": None}


def evaluate_expression(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    """The value of ``node`` in ``frame``; UNKNOWN for forms the evaluator does not model."""
    handler = _HANDLERS.get(type(node))
    return handler(ev, node, frame) if handler is not None else V(UNKNOWN)


def _simple_string(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.SimpleString)
    return V(_literal(node.value))


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
    return V(node.evaluated_value)


def _concatenated(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.ConcatenatedString)
    left, right = ev.expr(node.left, frame), ev.expr(node.right, frame)
    if left.known and right.known:
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
        spec = "".join(
            p.value for p in part.format_spec or () if isinstance(p, cst.FormattedStringText)
        )
        if not value.known or any(
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
        return V(_CONSTANT_NAMES[name])
    local = frame.lookup(name)
    if local is not None:
        return local
    constants = frame.symbols.constants
    if name in constants:
        return V(constants[name])
    return V(UNKNOWN)


def _collection(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Tuple | cst.List | cst.Set)
    values: list[V] = []
    for element in node.elements:
        if isinstance(element, cst.StarredElement):
            return V(UNKNOWN)
        values.append(ev.expr(element.value, frame))
    if not all(v.known for v in values):
        return derived(UNKNOWN, *values)
    items = tuple(v.value for v in values)
    if isinstance(node, cst.Set):
        try:
            return derived(frozenset(items), *values)
        except TypeError:
            return derived(UNKNOWN, *values)
    return derived(items, *values)


def _comparison(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Comparison)
    if contains_environ(node, lambda n: qualify(frame.symbols, n, frame.scope_names)):
        present = ev.read(ev.expr(node.left, frame), V(None), "contains")
        if isinstance(node.comparisons[0].operator, cst.NotIn) and present.known:
            return derived(not present.value, present)
        return present
    left = ev.expr(node.left, frame)
    sources = [left]
    result: object = True
    for target in node.comparisons:
        right = ev.expr(target.comparator, frame)
        sources.append(right)
        if not (left.known and right.known):
            return derived(UNKNOWN, *sources)
        result = ops.compare(target.operator, left.value, right.value)
        if result is UNKNOWN or not result:
            break
        left = right
    return derived(result, *sources)


def _boolean(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.BooleanOperation)
    left = ev.expr(node.left, frame)
    truth = truthiness(left)
    is_and = isinstance(node.operator, cst.And)
    if truth.known:
        if bool(truth.value) != is_and:  # `False and _` / `True or _`: the left side
            return left
        right = ev.expr(node.right, frame)
        return derived(right.value, left, right)
    right = ev.expr(node.right, frame)
    return derived(UNKNOWN, left, right)


def _unary(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.UnaryOperation)
    operand = ev.expr(node.expression, frame)
    if not operand.known:
        return operand
    return derived(ops.unary(node.operator, operand.value), operand)


def _binary(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.BinaryOperation)
    left, right = ev.expr(node.left, frame), ev.expr(node.right, frame)
    if left.raised or right.raised:
        return derived(left.value if left.raised else right.value, left, right)
    if not (left.known and right.known):
        return derived(UNKNOWN, left, right)
    return derived(ops.binary(node.operator, left.value, right.value), left, right)


def _if_expression(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.IfExp)
    test = ev.test(node.test, frame)
    if test.known:
        chosen = ev.expr(node.body if test.value else node.orelse, frame)
        return derived(chosen.value, test, chosen)
    return derived(UNKNOWN, test)


def _call(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Call)
    func = node.func
    qualified = qualify(frame.symbols, func, frame.scope_names)
    if qualified in READ_CALLS:
        name_node, default_node = read_arguments(node)
        name = ev.expr(name_node, frame) if name_node is not None else V(UNKNOWN)
        default = ev.expr(default_node, frame) if default_node is not None else V(None)
        return ev.read(name, default, READ_CALLS[qualified].value)
    wrapper = ev.lookup_wrapper(func, frame)
    if wrapper is not None:
        return ev.call_wrapper(wrapper[0], node, frame, bound=wrapper[1])
    args = [ev.expr(arg.value, frame) for arg in node.args]
    plain = all(arg.keyword is None and not arg.star for arg in node.args)
    values = [a.value for a in args]
    if isinstance(func, cst.Attribute):
        receiver = ev.expr(func.value, frame)
        if (
            plain
            and receiver.known
            and isinstance(receiver.value, str)
            and all(a.known for a in args)
        ):
            result = ops.str_method(receiver.value, func.attr.value, values)
            return derived(result, receiver, *args)
        return derived(UNKNOWN, receiver, *args)
    function = None
    if isinstance(func, cst.Name) and frame.lookup(func.value) is None and qualified is None:
        function = ops.BUILTINS.get(func.value)
    elif qualified is not None:
        function = ops.FUNCTIONS.get(qualified)
    if function is not None and plain and all(a.known for a in args):
        return derived(ops.call(function, values), *args)
    if any(a.raised for a in args):
        return derived(next(a.value for a in args if a.raised), *args)
    return derived(UNKNOWN, *args)


def _subscript(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Subscript)
    key = subscript_name(node)
    if key is not None and qualify(frame.symbols, node.value, frame.scope_names) == ENVIRON:
        return ev.read(ev.expr(key, frame), V(None), "subscript")
    container = ev.expr(node.value, frame)
    if key is None:
        return derived(UNKNOWN, container)
    index = ev.expr(key, frame)
    if container.known and index.known:
        return derived(ops.call(_getitem, [container.value, index.value]), container, index)
    return derived(UNKNOWN, container, index)


def _getitem(container: object, index: object) -> object:
    return container[index]  # type: ignore[index]


def _attribute(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.Attribute)
    return derived(UNKNOWN, ev.expr(node.value, frame))


def _named(ev: Evaluator, node: cst.BaseExpression, frame: Frame) -> V:
    assert isinstance(node, cst.NamedExpr)
    value = ev.expr(node.value, frame)
    if isinstance(node.target, cst.Name):
        frame.assign(node.target.value, value)
    return value


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
    cst.Comparison: _comparison,
    cst.BooleanOperation: _boolean,
    cst.UnaryOperation: _unary,
    cst.BinaryOperation: _binary,
    cst.IfExp: _if_expression,
    cst.Call: _call,
    cst.Subscript: _subscript,
    cst.Attribute: _attribute,
    cst.NamedExpr: _named,
}
