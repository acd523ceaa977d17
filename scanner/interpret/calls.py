"""Calls: reads, accessors, wrappers, closures, methods of instances, pure builtins.

A function's body runs in a frame of its own module's bindings, its parameters
bound to the call's arguments (defaults where the call gives none); what it
returns depends on the variable when its body read it or branched on it. A
closure factory's result is called at once: the variable is read when the
function it returns runs, and that value is what a site of the factory gives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst

from scanner.accessors import ENVIRON, ENVIRON_COPIES, READ_CALLS, accessor_kind
from scanner.interpret import descriptors
from scanner.interpret import operations as ops
from scanner.interpret.frames import Frame
from scanner.interpret.objects import Closure, Instance
from scanner.interpret.values import ENVIRON_COPY, RAISED, UNKNOWN, V, derived
from scanner.syntax.index import CLASS, Wrapper
from scanner.syntax.reads import read_arguments
from scanner.syntax.scopes import ScopeNode, body_statements, param_list
from scanner.syntax.symbols import dotted, qualify

if TYPE_CHECKING:
    from scanner.interpret.evaluate import Evaluator

MAX_DEPTH = 12
_COPY_METHODS = frozenset({"copy", "keys"})


def evaluate_call(ev: Evaluator, node: cst.Call, frame: Frame) -> V:
    """The value of a call."""
    func = node.func
    qualified = qualify(frame.symbols, func, frame.scope_names)
    if qualified in READ_CALLS:
        return _read_call(ev, node, frame, READ_CALLS[qualified].value)
    if _copies_environ(node, qualified, frame):
        return V(value=ENVIRON_COPY)
    receiver: V | None = None
    if isinstance(func, cst.Attribute):
        receiver = _receiver(ev, func, frame)
        if receiver is not None:
            method = _method_call(ev, receiver, func.attr.value, node, frame)
            if method is not None:
                return method
    elif isinstance(func, cst.Name):
        local = frame.lookup(func.value)
        if local is not None and isinstance(local.value, Closure):
            return call_closure(ev, local.value, node, frame)
    else:
        callee = ev.expr(func, frame)
        if callee.known and isinstance(callee.value, Closure):
            return call_closure(ev, callee.value, node, frame)
        if isinstance(func, cst.Call) and id(func) in ev.factories and not node.args:
            return callee  # factory(...)(): the factory's function was called already
        args = [ev.expr(arg.value, frame) for arg in node.args]
        return derived(UNKNOWN, callee, *args)
    wrapper = ev.lookup_wrapper(func, frame, qualified)
    if wrapper is not None:
        return call_wrapper(ev, wrapper[0], node, frame, bound=wrapper[1])
    short = func.attr.value if isinstance(func, cst.Attribute) else dotted(func)
    named = qualified is not None or isinstance(func, cst.Name)
    kind = accessor_kind(short, ev.module.accessors) if named else None
    if kind is not None and not (qualified or "").startswith("os."):
        return _accessor(ev, node, frame, kind)
    return _plain_call(ev, node, frame, qualified, receiver)


def _copies_environ(node: cst.Call, qualified: str | None, frame: Frame) -> bool:
    """``os.environ.copy()`` or ``dict(os.environ)``."""
    if qualified in ENVIRON_COPIES:
        return True
    func = node.func
    if not (isinstance(func, cst.Name) and func.value == "dict" and qualified is None):
        return False
    if frame.lookup("dict") is not None or len(node.args) != 1 or node.args[0].keyword:
        return False
    return qualify(frame.symbols, node.args[0].value, frame.scope_names) == ENVIRON


def _receiver(ev: Evaluator, func: cst.Attribute, frame: Frame) -> V | None:
    """The value a method is called on, when it is an object the evaluator models."""
    base = func.value
    if (
        isinstance(base, cst.Call)
        and isinstance(base.func, cst.Name)
        and base.func.value == "super"
        and frame.owner is not None
    ):
        return None  # super().method(...): see call_super
    return ev.expr(base, frame)


def _method_call(ev: Evaluator, receiver: V, name: str, node: cst.Call, frame: Frame) -> V | None:
    """A call of a method of a modelled value (None: not one the evaluator models)."""
    data = receiver.value
    if data is ENVIRON_COPY:
        if name == "get":
            return _read_call(ev, node, frame, "get")
        if name in _COPY_METHODS:
            return V(value=ENVIRON_COPY)
        return None
    if isinstance(data, Instance):
        found = data.model.method(name)
        if found is None:
            args = [ev.expr(arg.value, frame) for arg in node.args]
            return derived(UNKNOWN, receiver, *args)
        owner, function = found
        return call_function(
            ev, function, node, frame, data.model.symbols, self_value=receiver, owner=owner
        )
    if isinstance(data, Closure):
        return None
    if receiver.plain and isinstance(data, str | dict):
        args = [ev.expr(arg.value, frame) for arg in node.args]
        plain = all(arg.keyword is None and not arg.star for arg in node.args)
        if not (plain and all(a.plain for a in args)):
            return derived(UNKNOWN, receiver, *args)
        values = [a.value for a in args]
        if isinstance(data, str):
            return derived(ops.str_method(data, name, values), receiver, *args)
        return derived(ops.dict_method(data, name, values), receiver, *args)
    return None


def call_super(ev: Evaluator, node: cst.Call, frame: Frame) -> V | None:
    """``super().name(...)`` in a method run on an instance."""
    func = node.func
    if not isinstance(func, cst.Attribute) or frame.owner is None:
        return None
    model, owner = frame.owner
    self_value = frame.lookup("self")
    found = model.method(func.attr.value, start=owner)
    if found is None or self_value is None:
        return V(value=None) if func.attr.value == "__init__" else V(value=UNKNOWN)
    defined_in, function = found
    return call_function(
        ev, function, node, frame, model.symbols, self_value=self_value, owner=defined_in
    )


def call_closure(ev: Evaluator, closure: Closure, node: cst.Call | None, frame: Frame) -> V:
    """Call a function value (``node`` None: with no arguments)."""
    return call_function(
        ev,
        closure.node,
        node,
        frame,
        closure.symbols,
        parent=closure.frame,
        qualname=closure.qualname,
        method_class=closure.method_class,
    )


def call_wrapper(
    ev: Evaluator, wrapper: Wrapper, node: cst.Call, frame: Frame, *, bound: bool
) -> V:
    """Run ``wrapper`` with the call's arguments; its value, tainted as due.

    A descriptor class is constructed (see ``descriptors.construct``), and the value its
    reader method returns is noted as the site's value.
    """
    if wrapper.kind == CLASS:
        return descriptors.construct(ev, wrapper, node, frame)
    function = wrapper.function()
    result = call_function(
        ev,
        function,
        node,
        frame,
        wrapper.symbols,
        bound=wrapper.binds_first(bound),
        method_class=wrapper.qualname.rsplit(".", 1)[0] if wrapper.method else None,
        qualname=wrapper.qualname,
    )
    if result.known and isinstance(result.value, Closure):
        # A closure factory: the variable is read when the returned function runs.
        ev.factories.add(id(node))
        called = call_closure(ev, result.value, None, frame)
        return derived(called.value, called, result)
    return result


def call_function(
    ev: Evaluator,
    function: ScopeNode,
    node: cst.Call | None,
    frame: Frame,
    symbols: object,
    *,
    bound: bool = False,
    self_value: V | None = None,
    owner: str | None = None,
    parent: Frame | None = None,
    qualname: str = "",
    method_class: str | None = None,
) -> V:
    """Run ``function`` with the arguments of ``node`` (evaluated in ``frame``)."""
    from scanner.syntax.namespace import Symbols

    assert isinstance(symbols, Symbols)
    args = [
        (arg.keyword.value if arg.keyword else None, arg) for arg in (node.args if node else ())
    ]
    values = {id(arg): ev.expr(arg.value, frame) for _, arg in args}
    if frame.depth >= MAX_DEPTH:
        ev.note_limit(f"calls nested more than {MAX_DEPTH} deep")
        return derived(UNKNOWN, *values.values())
    inner = Frame(
        symbols,
        {},
        scope_names=ev.scope_names(function),
        depth=frame.depth + 1,
        method_class=method_class,
        parent=parent,
        qualname=qualname,
        owner=(self_value.value.model, owner)
        if self_value is not None and isinstance(self_value.value, Instance) and owner
        else None,
    )
    positional = [*function.params.posonly_params, *function.params.params]
    if self_value is not None and positional:
        inner.assign(positional[0].name.value, self_value)
        positional = positional[1:]
    elif bound and positional:
        inner.assign(positional[0].name.value, V(value=UNKNOWN))
        positional = positional[1:]
    given = _bind(function, positional, args, values)
    for param in param_list(function.params):
        name = param.name.value
        if name in given:
            inner.assign(name, given[name])
        elif name not in inner.locals:
            default = param.default
            inner.assign(name, ev.expr(default, inner) if default else V(value=UNKNOWN))
    if isinstance(function, cst.Lambda):
        result = ev.expr(function.body, inner)
        return replace(result, env=result.env or inner.control)
    flow = ev.block(body_statements(function.body), inner)
    if flow.kind == "raise":
        return V(value=RAISED, env=inner.control)
    result = flow.value if flow.kind == "return" and flow.value is not None else V(value=None)
    # A value returned on a path the site's own value chose (a descriptor's default, given
    # when the variable is unset or does not parse) is the site's, as a read's default is.
    return replace(result, env=result.env or inner.control, site=result.site or inner.site_control)


def _bind(
    function: ScopeNode,
    positional: list[cst.Param],
    args: list[tuple[str | None, cst.Arg]],
    values: dict[int, V],
) -> dict[str, V]:
    """The parameters a call's arguments give, by name. What ``*seq`` or ``**mapping``
    may fill is unknown (not its default): ``dispatch("rms_norm", *args, impl=x)`` still
    gives ``op_name`` and ``impl``, as Liger-Kernel's dispatch helper is called."""
    given: dict[str, V] = {}
    extra: list[V] = []  # positional arguments beyond the parameters: *args
    spread: list[V] = []  # the values of *seq and **mapping arguments
    index = 0
    star_at: int | None = None  # where a *seq argument starts filling positions
    double = False
    for keyword, arg in args:
        value = values[id(arg)]
        if arg.star == "*" or (star_at is not None and keyword is None):
            star_at = index if star_at is None else star_at
            spread.append(value)
        elif arg.star == "**":
            double = True
            spread.append(value)
        elif keyword is not None:
            given[keyword] = value
        elif index < len(positional):
            given[positional[index].name.value] = value
            index += 1
        else:
            extra.append(value)
    unknown = derived(UNKNOWN, *spread)
    star = function.params.star_arg
    if isinstance(star, cst.Param):
        known = star_at is None and all(v.known for v in extra)
        items = tuple(v.value for v in extra) if known else UNKNOWN
        given[star.name.value] = derived(items, *extra, *spread)
    if star_at is not None:
        for param in positional[star_at:]:
            given.setdefault(param.name.value, unknown)
    if double:
        named = [*function.params.params, *function.params.kwonly_params]
        for param in named:
            given.setdefault(param.name.value, unknown)
        keywords = function.params.star_kwarg
        if keywords is not None:
            given[keywords.name.value] = unknown
    return given


def _accessor(ev: Evaluator, node: cst.Call, frame: Frame, kind: str) -> V:
    """A call of an accessor named like ``getenv`` from a module outside the tree."""
    return _read_call(ev, node, frame, "get", ops.ACCESSOR_CONVERSIONS.get(kind))


def _read_call(
    ev: Evaluator,
    node: cst.Call,
    frame: Frame,
    kind: str,
    convert: Callable[[str], object] | None = None,
) -> V:
    """A call that reads the variable its first argument names, the second its default."""
    name_node, default_node = read_arguments(node)
    name = ev.expr(name_node, frame) if name_node is not None else V(value=UNKNOWN)
    default = ev.expr(default_node, frame) if default_node is not None else V(value=None)
    return ev.read(name, default, kind, convert=convert, node=node)


def _plain_call(
    ev: Evaluator, node: cst.Call, frame: Frame, qualified: str | None, receiver: V | None
) -> V:
    func = node.func
    if isinstance(func, cst.Attribute) and receiver is None:
        found = call_super(ev, node, frame)
        if found is not None:
            return found
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and frame.owner is not None
        and func.value.value in frame.owner[0].classes
    ):
        # Base.method(self, ...) inside a method: the base class's own definition.
        model = frame.owner[0]
        found_method = model.method(func.attr.value, start=None, at=func.value.value)
        self_value = frame.lookup("self")
        if found_method is not None and self_value is not None:
            return call_function(
                ev,
                found_method[1],
                node.with_changes(args=node.args[1:]),
                frame,
                model.symbols,
                self_value=self_value,
                owner=found_method[0],
            )
    if qualified in ops.CASTS and len(node.args) == 2 and not any(a.star for a in node.args):
        return ev.expr(node.args[1].value, frame)  # ``cast(T, v)`` is ``v`` at run time
    converted = _converted(ev, node, frame)
    if converted is not None:
        return converted
    args = [ev.expr(arg.value, frame) for arg in node.args]
    plain = all(arg.keyword is None and not arg.star for arg in node.args)
    values = [a.value for a in args]
    # The builtin a bare name calls, unless a local or a module-level name shadows it.
    builtin = (
        func.value
        if isinstance(func, cst.Name) and frame.lookup(func.value) is None and qualified is None
        else None
    )
    if builtin == "callable" and len(args) == 1 and isinstance(args[0].value, Closure):
        return derived(True, *args)  # sglang's EnvField(lambda: ...): a default to call
    function = None
    if builtin is not None:
        function = ops.BUILTINS.get(builtin)
    elif qualified is not None:
        function = ops.FUNCTIONS.get(qualified)
    if function is None and _last_name(func) == "strtobool":
        function = ops.strtobool  # the well-known contract, whichever module defines it
    if qualified in ops.PATH_FUNCTIONS or builtin in ops.PATH_BUILTINS:
        ev.note_path(args)
    if function is not None and plain and all(a.plain for a in args):
        if function in ops.NUMBERS and any(a.site for a in args):
            ev.seen.counted = True
        return derived(ops.call(function, values), *args)
    if any(a.raised for a in args):
        return derived(next(a.value for a in args if a.raised), *args)
    if any(a.env for a in args):
        ev.note_opaque(dotted(func) or "a call")
        ev.note_passed(args)
    return derived(UNKNOWN, *args, *([receiver] if receiver is not None else []))


def _converted(ev: Evaluator, node: cst.Call, frame: Frame) -> V | None:
    """What a converter of the module returns for the call (``maybe_convert_bool(v)``,
    see ``scanner.interpret.converters``), when that depends on the variable and is
    known; None when the callee is no converter or its result says nothing."""
    func = node.func
    lookup = ev.module.converter
    if lookup is None or not isinstance(func, cst.Name) or frame.lookup(func.value) is not None:
        return None
    if func.value not in frame.symbols.functions:
        return None
    function = lookup(func.value)
    if function is None:
        return None
    result = call_function(ev, function, node, frame, frame.symbols)
    if not result.env or result.value is UNKNOWN:
        return None
    return result


def _last_name(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Name):
        return func.value
    return func.attr.value if isinstance(func, cst.Attribute) else ""
