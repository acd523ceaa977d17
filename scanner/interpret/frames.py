"""Local names of a scope: which are parameters, which are bound, and to what.

Two kinds of frame look names up. ``Frame`` is flow-sensitive: the evaluator
assigns locals as it executes statements. ``Resolver`` is flow-insensitive: a
local assigned exactly once stands for its value everywhere, which is how a
read's variable name is resolved without running the function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from scanner.interpret.values import UNKNOWN, V

if TYPE_CHECKING:
    from scanner.interpret.objects import ClassModel
from scanner.syntax.namespace import Symbols
from scanner.syntax.scopes import ScopeNode, body_statements, param_list
from scanner.syntax.symbols import dotted
from scanner.syntax.walk import nodes


@dataclass(frozen=True, slots=True)
class Bindings:
    """Every name a scope binds, and for plain ``name = value`` the values."""

    params: tuple[str, ...]  # in declaration order
    assigned: frozenset[str]  # every locally bound name, parameters included
    values: dict[str, tuple[cst.BaseExpression | None, ...]]  # None: not a plain assignment


_NESTED_SCOPES = (
    cst.FunctionDef,
    cst.ClassDef,
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)


class _BindingCollector:
    """Names bound in one scope, not descending into nested scopes.

    Imports are left out unless asked for: the scanner resolves them module-wide
    (see symbols.py), but a module constant must not also be imported.
    """

    def __init__(self, *, imports: bool = False) -> None:
        self.values: dict[str, list[cst.BaseExpression | None]] = {}
        self.imports = imports

    def collect(self, root: cst.CSTNode) -> None:
        if isinstance(root, _NESTED_SCOPES):
            self._node(root)  # a nested scope binds its name, nothing inside it
            return
        for node in nodes(root, prune=_NESTED_SCOPES):
            self._node(node)

    def _bind(self, name: str, value: cst.BaseExpression | None) -> None:
        self.values.setdefault(name, []).append(value)

    def _bind_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, value)
        elif isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._bind_target(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, None)

    def _node(self, node: cst.CSTNode) -> None:
        kind = type(node)  # exact types: isinstance on libcst's ABCs is slow here
        if kind is cst.Assign:
            assert isinstance(node, cst.Assign)
            for target in node.targets:
                self._bind_target(target.target, node.value)
        elif kind is cst.AnnAssign:
            assert isinstance(node, cst.AnnAssign)
            if node.value is not None:
                self._bind_target(node.target, node.value)
        elif kind is cst.AugAssign or kind is cst.For:
            assert isinstance(node, cst.AugAssign | cst.For)
            self._bind_target(node.target, None)
        elif kind is cst.WithItem:
            assert isinstance(node, cst.WithItem)
            if node.asname is not None:
                self._bind_target(node.asname.name, None)
        elif kind is cst.NamedExpr:
            assert isinstance(node, cst.NamedExpr)
            self._bind_target(node.target, node.value)
        elif kind is cst.ExceptHandler:
            assert isinstance(node, cst.ExceptHandler)
            if node.name is not None:
                self._bind_target(node.name.name, None)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            assert isinstance(node, cst.FunctionDef | cst.ClassDef)
            self._bind(node.name.value, None)
        elif self.imports and kind is cst.ImportAlias:
            assert isinstance(node, cst.ImportAlias)
            bound = node.asname.name if node.asname is not None else node.name
            if isinstance(bound, cst.Name | cst.Attribute):
                self._bind(dotted(bound).split(".", 1)[0], None)


def collect_bindings(scope: ScopeNode) -> Bindings:
    """The bindings of a function or lambda."""
    params = tuple(p.name.value for p in param_list(scope.params))
    collector = _BindingCollector()
    if isinstance(scope, cst.FunctionDef):
        for statement in body_statements(scope.body):
            collector.collect(statement)
    values = {name: tuple(found) for name, found in collector.values.items()}
    return Bindings(params=params, assigned=frozenset((*params, *values)), values=values)


def module_bindings(tree: cst.Module) -> Bindings:
    """The bindings of a module's top level (functions and classes not entered)."""
    collector = _BindingCollector(imports=True)
    for statement in tree.body:
        collector.collect(statement)
    values = {name: tuple(found) for name, found in collector.values.items()}
    return Bindings(params=(), assigned=frozenset(values), values=values)


def statements_bindings(statements: Iterable[cst.CSTNode]) -> frozenset[str]:
    """Names bound by a run of statements (for forgetting them after a skipped branch)."""
    collector = _BindingCollector()
    for statement in statements:
        collector.collect(statement)
    return frozenset(collector.values)


class Frame:
    """Flow-sensitive locals of one activation (and, through ``parent``, of the
    functions around a closure)."""

    __slots__ = (
        "control",
        "depth",
        "locals",
        "method_class",
        "owner",
        "parent",
        "qualname",
        "scope_names",
        "site_control",
        "symbols",
    )

    def __init__(
        self,
        symbols: Symbols,
        locals_: dict[str, V],
        *,
        scope_names: frozenset[str] = frozenset(),
        depth: int = 0,
        method_class: str | None = None,
        parent: Frame | None = None,
        qualname: str = "",
        owner: tuple[ClassModel, str] | None = None,
    ) -> None:
        self.symbols = symbols
        self.locals = locals_
        self.scope_names = scope_names  # names local to the scope, bound or not yet
        self.depth = depth
        self.control = False  # a branch on the knob has been taken in this activation
        self.site_control = False  # one on the value the site under study read
        self.method_class = method_class  # qualified class name, for self.method() calls
        self.parent = parent  # the frame a closure was defined in
        self.qualname = qualname  # the function's qualified name, for nested definitions
        self.owner = owner  # (class model, class name) of a method run on an instance

    def lookup(self, name: str) -> V | None:
        """The local's value; UNKNOWN for a local not yet bound; None for a non-local."""
        found = self.locals.get(name)
        if found is not None:
            return found
        if name in self.scope_names:
            return V(value=UNKNOWN)
        if self.parent is not None:
            return self.parent.lookup(name)
        return None

    def assign(self, name: str, value: V) -> None:
        self.locals[name] = value

    def forget(self, names: Iterable[str]) -> None:
        for name in names:
            self.locals[name] = V(value=UNKNOWN)


class Resolver(Frame):
    """Flow-insensitive locals: parameters stay symbolic, single assignments resolve."""

    __slots__ = ("_bindings", "_evaluate", "_parent", "_pending")

    def __init__(
        self,
        symbols: Symbols,
        bindings: Bindings,
        evaluate: Callable[[cst.BaseExpression, Frame], V],
        parent: Resolver | None = None,
        method_class: str | None = None,
    ) -> None:
        super().__init__(symbols, {}, scope_names=bindings.assigned, method_class=method_class)
        self._bindings = bindings
        self._evaluate = evaluate
        self._parent = parent
        self._pending: set[str] = set()

    def lookup(self, name: str) -> V | None:
        cached = self.locals.get(name)
        if cached is not None:
            return cached
        if name not in self._bindings.assigned:
            return self._parent.lookup(name) if self._parent is not None else None
        result = V(value=UNKNOWN)
        values = self._bindings.values.get(name, ())
        if name in self._bindings.params and not values:
            result = V(value=UNKNOWN, params=frozenset({name}))
        elif len(values) == 1 and values[0] is not None and name not in self._pending:
            self._pending.add(name)
            result = self._evaluate(values[0], self)
            self._pending.discard(name)
        self.locals[name] = result
        return result
