"""What an object the code holds may be, so that calling it, or a method of it, is followed.

A graph runner or a kernel backend is often not called by name: a class is chosen into a
local (``runner_cls = select(builtin=lambda: RUNNERS[device])``, then ``runner_cls(self)``),
an attribute holds what a factory returns (``self.backend = make_backend(self)``, then
``self.backend.capture_one(...)``), or a list holds the runners (``self.runners[i].capture()``,
filled by ``self.runners.append(self._make_runner(i))``). ``Holder`` says which of the tree's
classes and functions such an expression may hold: the values a local or ``self.x`` is bound
to, the elements put in a dict, list or tuple, the arms of a conditional, what a called
function of the tree returns (its parameters bound to the call's arguments, a lambda among
them), and an instance of a class that is called. What it cannot tell is nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from scanner.reach.modules import Definition, Module
from scanner.source.ast_walk import children, walk

MAX_RETURNS = 3  # nested calls whose returned values are followed
MAX_VALUES = 8  # an expression that may hold more things than this is too vague to follow
MAX_STEPS = 200  # expressions read for one question
MAX_NESTED = 16  # expressions read inside one another
Function = ast.FunctionDef | ast.AsyncFunctionDef


class Locator(Protocol):
    def definition(self, dotted: str) -> tuple[Module, str, Definition] | None: ...


@dataclass(frozen=True, slots=True)
class Held:
    """A definition of the tree an expression may hold: the class or function itself, or
    an instance of the class (``instance``)."""

    dotted: str
    instance: bool


@dataclass(eq=False, slots=True)
class _Scope:
    """Where an expression is read: its module, its function, the class of the method, and
    the parameters a call bound to its arguments (read in the caller's scope)."""

    module: Module
    function: Function | None
    owner: str | None  # the local name of the class of the method
    bound: Mapping[str, tuple[ast.expr, _Scope]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False, slots=True)
class _Lambda:
    node: ast.Lambda
    scope: _Scope


_Value = Held | _Lambda


class Holder:
    """The tree's definitions an expression may hold; one per scan."""

    def __init__(self, locator: Locator) -> None:
        self._locator = locator
        self._active: set[int] = set()
        self._budget = MAX_STEPS
        # By node id, with the node (an id is its own only while the node lives): what
        # ``_returns`` and ``_appends`` found in a function or class, asked again for
        # every value that reaches it.
        self._returns_found: dict[int, tuple[Function, tuple[ast.expr, ...]]] = {}
        self._appends_found: dict[int, tuple[ast.AST, tuple[ast.Call, ...]]] = {}

    def callees(self, module: Module, node: ast.expr, owner: str | None) -> list[str]:
        """What calling ``node`` (a local, ``self.x``, an element of either) may call: the
        dotted names of the tree's definitions, each a class, a function or a method."""
        self._budget = MAX_STEPS
        scope = _Scope(module, module.function_node_around(node), _local_class(module, owner))
        found: list[str] = []
        for value in self._values(node, scope, 0):
            if isinstance(value, Held):
                found.append(f"{value.dotted}.__call__" if value.instance else value.dotted)
        return sorted(set(found))[:MAX_VALUES]

    def methods(self, module: Module, node: ast.Attribute, owner: str | None) -> list[str]:
        """The methods ``node`` (``held.m``) may name: ``C.m`` for each class ``held`` may
        hold (or be an instance of)."""
        self._budget = MAX_STEPS
        scope = _Scope(module, module.function_node_around(node), _local_class(module, owner))
        found = {
            f"{v.dotted}.{node.attr}"
            for v in self._values(node.value, scope, 0)
            if isinstance(v, Held) and self._is_class(v.dotted)
        }
        return sorted(found)[:MAX_VALUES]

    def global_methods(self, module: Module, name: str, method: str) -> list[str]:
        """The methods ``name.method`` names, where ``name`` is a module-level name of
        ``module`` bound to an expression (``Ops = pick_ops()``, whose returns are classes):
        ``C.method`` for each class it may hold (or be an instance of)."""
        self._budget = MAX_STEPS
        scope = _Scope(module, None, None)
        found = {
            f"{v.dotted}.{method}"
            for value in module.aliases.get(name, [])
            for v in self._values(value, scope, 0)
            if isinstance(v, Held) and self._is_class(v.dotted)
        }
        return sorted(found)[:MAX_VALUES]

    def attribute_methods(self, module: Module, cls: str, attr: str, method: str) -> list[str]:
        """The methods ``self.attr.method`` names in class ``cls`` (its local name):
        ``C.method`` for each class whose instance ``self.attr`` may hold."""
        self._budget = MAX_STEPS
        scope = _Scope(module, None, cls)
        values = self._attribute(scope, attr, 0)
        found = {
            f"{v.dotted}.{method}"
            for v in values
            if isinstance(v, Held) and v.instance and self._is_class(v.dotted)
        }
        return sorted(found)[:MAX_VALUES]

    def _values(self, node: ast.expr, scope: _Scope, depth: int) -> list[_Value]:
        key = id(node)  # an expression met again inside its own evaluation: a cycle
        if key in self._active or self._budget <= 0 or len(self._active) >= MAX_NESTED:
            return []
        self._budget -= 1
        self._active.add(key)
        try:
            found = list(self._evaluate(node, scope, depth))
        finally:
            self._active.discard(key)
        unique: list[_Value] = []
        for value in found:
            if value not in unique:
                unique.append(value)
        return unique if len(unique) <= MAX_VALUES else []

    def _evaluate(self, node: ast.expr, scope: _Scope, depth: int) -> Iterator[_Value]:
        if isinstance(node, ast.Name):
            yield from self._name(node, scope, depth)
        elif isinstance(node, ast.Attribute):
            if (
                isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and scope.owner
                and node.attr not in scope.bound
            ):
                yield from self._attribute(scope, node.attr, depth)
                return
            dotted = scope.module.resolve(node)
            if dotted is not None and self._locator.definition(dotted) is not None:
                yield Held(dotted, False)
        elif isinstance(node, ast.IfExp):
            yield from self._values(node.body, scope, depth)
            yield from self._values(node.orelse, scope, depth)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                yield from self._values(value, scope, depth)
        elif isinstance(node, ast.Subscript):
            yield from self._elements(node.value, scope, depth)
        elif isinstance(node, ast.Lambda):
            yield _Lambda(node, scope)
        elif isinstance(node, ast.Call):
            yield from self._call(node, scope, depth)

    def _name(self, node: ast.Name, scope: _Scope, depth: int) -> Iterator[_Value]:
        argument = scope.bound.get(node.id)
        if argument is not None:
            yield from self._values(argument[0], argument[1], depth)
            return
        if scope.function is not None:
            bindings = scope.module.local_bindings(scope.function).get(node.id)
            if bindings:
                for value in bindings:
                    yield from self._values(value, scope, depth)
                return
        dotted = scope.module.resolve(node)
        if dotted is not None and self._locator.definition(dotted) is not None:
            yield Held(dotted, False)

    def _attribute(self, scope: _Scope, attr: str, depth: int) -> list[_Value]:
        """What ``self.attr`` may hold: each value the class's methods bind to it, read in
        the method that binds it."""
        if scope.owner is None:
            return []
        found: list[_Value] = []
        for value in scope.module.attribute_values(scope.owner, attr):
            inner = _Scope(scope.module, scope.module.function_node_around(value), scope.owner)
            found.extend(self._values(value, inner, depth))
        return found

    def _elements(self, node: ast.expr, scope: _Scope, depth: int) -> Iterator[_Value]:
        """What an element of ``node`` (a dict, list or tuple; a local or ``self.x`` bound
        to one, or filled by ``.append``) may hold."""
        key = -1 - id(node)  # the elements of an expression met again inside their own reading
        if key in self._active or self._budget <= 0 or len(self._active) >= MAX_NESTED:
            return
        self._budget -= 1
        self._active.add(key)
        try:
            yield from self._contained(node, scope, depth)
        finally:
            self._active.discard(key)

    def _contained(self, node: ast.expr, scope: _Scope, depth: int) -> Iterator[_Value]:
        if isinstance(node, ast.Dict):
            for value in node.values:
                yield from self._values(value, scope, depth)
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            for element in node.elts:
                yield from self._values(element, scope, depth)
        elif isinstance(node, ast.Name) and scope.function is not None:
            for value in scope.module.local_bindings(scope.function).get(node.id, []):
                yield from self._elements(value, scope, depth)
            for appended in _appended(self._appended_in(scope.function), node.id, local=True):
                yield from self._values(appended, scope, depth)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and scope.owner is not None
        ):
            cls = scope.module.definitions.get(scope.owner)
            if not isinstance(cls, ast.ClassDef):
                return
            for value in scope.module.attribute_values(scope.owner, node.attr):
                inner = _Scope(scope.module, scope.module.function_node_around(value), scope.owner)
                yield from self._elements(value, inner, depth)
            for appended in _appended(self._appended_in(cls), node.attr, local=False):
                inner = _Scope(
                    scope.module, scope.module.function_node_around(appended), scope.owner
                )
                yield from self._values(appended, inner, depth)

    def _call(self, node: ast.Call, scope: _Scope, depth: int) -> Iterator[_Value]:
        """What a call returns: an instance of a class called; what a function of the tree
        (a method of ``self`` included) or a lambda returns."""
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
            and scope.owner is not None
        ):
            dotted = scope.module.qualified(f"{scope.owner}.{func.attr}")
            yield from self._returned(dotted, node, scope, depth, method=True)
            return
        for callee in self._values(func, scope, depth):
            if isinstance(callee, _Lambda):
                yield from self._values(callee.node.body, callee.scope, depth)
            elif not callee.instance and self._is_class(callee.dotted):
                yield Held(callee.dotted, True)
            elif not callee.instance:
                yield from self._returned(callee.dotted, node, scope, depth, method=False)

    def _returned(
        self, dotted: str, call: ast.Call, scope: _Scope, depth: int, method: bool
    ) -> Iterator[_Value]:
        if depth >= MAX_RETURNS:
            return
        located = self._locator.definition(dotted)
        if located is None:
            return
        module, local, function = located
        if isinstance(function, ast.ClassDef):
            yield Held(module.qualified(local), True)
            return
        owner = local.rsplit(".", 1)[0] if "." in local else None
        bound = _bind(function, call, scope, method)
        inner = _Scope(module, function, owner, bound)
        for returned in self._returns_of(function):
            yield from self._values(returned, inner, depth + 1)

    def _returns_of(self, function: Function) -> tuple[ast.expr, ...]:
        known = self._returns_found.get(id(function))
        if known is None or known[0] is not function:
            known = self._returns_found[id(function)] = (function, tuple(_returns(function)))
        return known[1]

    def _appended_in(self, node: ast.AST) -> tuple[ast.Call, ...]:
        known = self._appends_found.get(id(node))
        if known is None or known[0] is not node:
            known = self._appends_found[id(node)] = (node, tuple(_appends(node)))
        return known[1]

    def _is_class(self, dotted: str) -> bool:
        located = self._locator.definition(dotted)
        return located is not None and isinstance(located[2], ast.ClassDef)


def _local_class(module: Module, owner: str | None) -> str | None:
    """The local name (``C``) of the class ``owner`` (``pkg.mod.C``) in ``module``."""
    if owner is None:
        return None
    prefix = f"{module.name}." if module.name else ""
    return owner.removeprefix(prefix) if owner.startswith(prefix) else None


def _bind(
    function: Function, call: ast.Call, scope: _Scope, method: bool
) -> dict[str, tuple[ast.expr, _Scope]]:
    """The parameters of ``function`` bound to the arguments of ``call``."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if method and positional:
        positional = positional[1:]
    bound: dict[str, tuple[ast.expr, _Scope]] = {}
    for parameter, value in zip(positional, call.args, strict=False):
        if isinstance(value, ast.Starred):
            break
        bound[parameter.arg] = (value, scope)
    names = {a.arg for a in (*positional, *arguments.kwonlyargs)}
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in names:
            bound[keyword.arg] = (keyword.value, scope)
    return bound


def _returns(function: Function) -> Iterator[ast.expr]:
    """The values ``function``'s own ``return`` statements return (not a nested one's)."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            yield node.value
        elif not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
        ):
            pending.extend(children(node))


def _appends(node: ast.AST) -> Iterator[ast.Call]:
    """The calls ``x.append(y)`` (one argument) in ``node``, in ``ast.walk``'s order."""
    for call in walk(node):
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "append"
            and len(call.args) == 1
        ):
            yield call


def _appended(calls: tuple[ast.Call, ...], name: str, local: bool) -> Iterator[ast.expr]:
    """What ``name.append(x)`` (a local) or ``self.name.append(x)`` puts in, of ``calls``
    (``_appends``)."""
    for call in calls:
        assert isinstance(call.func, ast.Attribute)
        target = call.func.value
        if local:
            named = isinstance(target, ast.Name) and target.id == name
        else:
            named = (
                isinstance(target, ast.Attribute)
                and target.attr == name
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            )
        if named:
            yield call.args[0]
