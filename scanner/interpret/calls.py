"""Calls into wrapper functions: finding the wrapper a call names, and running it.

A wrapper's body runs in a frame of its own module's bindings, its parameters
bound to the call's arguments (defaults where the call gives none); what it
returns depends on the variable when its body read it or branched on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from scanner.interpret.frames import Frame, body_statements
from scanner.interpret.values import RAISED, UNKNOWN, V, derived
from scanner.syntax.callee import find_wrapper
from scanner.syntax.index import Wrapper, WrapperIndex
from scanner.syntax.scopes import param_list
from scanner.syntax.symbols import qualify

if TYPE_CHECKING:
    from scanner.interpret.evaluate import Evaluator

MAX_DEPTH = 6


def call_wrapper(
    ev: Evaluator, wrapper: Wrapper, node: cst.Call, frame: Frame, *, bound: bool
) -> V:
    """Run ``wrapper`` with the call's arguments; its return value, tainted as due."""
    function = wrapper.function()
    args = [(arg.keyword.value if arg.keyword else None, arg) for arg in node.args]
    values = {id(arg): ev.expr(arg.value, frame) for _, arg in args}
    if frame.depth >= MAX_DEPTH:
        return derived(UNKNOWN, *values.values())
    inner = Frame(
        wrapper.symbols,
        {},
        scope_names=ev.scope_names(function),
        depth=frame.depth + 1,
        method_class=wrapper.qualname.rsplit(".", 1)[0] if wrapper.method else None,
    )
    positional = [*function.params.posonly_params, *function.params.params]
    if bound and positional:
        inner.assign(positional[0].name.value, V(UNKNOWN))
        positional = positional[1:]
    given: dict[str, V] = {}
    index = 0
    for keyword, arg in args:
        value = values[id(arg)]
        if arg.star:
            return derived(UNKNOWN, *values.values())
        if keyword is not None:
            given[keyword] = value
        elif index < len(positional):
            given[positional[index].name.value] = value
            index += 1
    for param in param_list(function.params):
        name = param.name.value
        if name in given:
            inner.assign(name, given[name])
        elif name not in inner.locals:
            default = param.default
            inner.assign(name, ev.expr(default, inner) if default else V(UNKNOWN))
    flow = ev.block(body_statements(function.body), inner)
    if flow.kind == "raise":
        return V(RAISED, env=inner.control)
    result = flow.value if flow.kind == "return" and flow.value is not None else V(None)
    return V(result.value, result.env or inner.control, result.params)


def lookup_wrapper(
    index: WrapperIndex, func: cst.BaseExpression, frame: Frame
) -> tuple[Wrapper, bool] | None:
    """The wrapper a call's callee names, and whether it is a bound method call."""
    if not index.wrappers:
        return None
    qualified = qualify(frame.symbols, func, frame.scope_names)
    return find_wrapper(index, func, frame.method_class, qualified)
