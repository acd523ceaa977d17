"""One traversal per file: every read, write and wrapper call, with where it sits.

An event knows its position, its enclosing scope (``Class.method``,
``outer.<locals>.inner``, ``<module>``), the unit of code the evaluator must
run to judge it, and the ids of the nodes around it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import libcst as cst

from scanner.accessors import ENVIRON, READ_CALLS, WRITE_CALLS
from scanner.model import ReadKind, WriteKind
from scanner.syntax.callee import find_wrapper
from scanner.syntax.index import Wrapper, WrapperIndex
from scanner.syntax.locate import KINDS, InString, cst_name, string_root
from scanner.syntax.namespace import Symbols
from scanner.syntax.reads import contains_environ, read_arguments, subscript_name
from scanner.syntax.scopes import ScopeNode, param_list
from scanner.syntax.symbols import qualify
from scanner.syntax.walk import walk

_STRINGS = (cst.FormattedString, cst.ConcatenatedString)
# Nodes at which the expression around a read ends.
_BOUNDARIES = (
    cst.BaseSmallStatement,
    cst.BaseCompoundStatement,
    cst.BaseSuite,
    cst.Module,
    cst.Decorator,
    cst.Param,
)


@dataclass(frozen=True, slots=True)
class Unit:
    """The code the evaluator runs to judge an event."""

    scope: ScopeNode | None  # the function or lambda, or None for module/class level
    statements: tuple[cst.CSTNode, ...] = ()  # module/class level: from the event's statement
    method_class: str | None = None  # qualified class of a method, for self.x() calls


@dataclass(frozen=True, slots=True)
class Event:
    """A read, a write, or a call to a wrapper."""

    kind: ReadKind | WriteKind
    node: cst.CSTNode
    name: cst.BaseExpression | None
    line: int
    column: int
    function: str
    unit: Unit
    scopes: tuple[ScopeNode, ...]  # enclosing functions and lambdas, outermost first
    target: frozenset[int] = field(repr=False)  # ids of every node around the event
    chain: tuple[int, ...] = field(repr=False)  # ids of the expressions around it, inner first
    wrapper: Wrapper | None = None
    bound: bool = False  # a wrapper method called through self. or cls.

    @property
    def is_read(self) -> bool:
        return isinstance(self.kind, ReadKind)


@dataclass(slots=True)
class _Scope:
    node: cst.CSTNode
    qualname: str
    is_class: bool
    shadowed: frozenset[str]  # parameters of this and the enclosing functions
    method_class: str | None


class Locator(Protocol):
    """Where a node starts: ``(line, 1-based column)``, from its kind and pre-order ordinal
    (None inside an f-string, and then ``within`` is the outermost f-string around it)."""

    def __call__(
        self, node: cst.CSTNode, kind: str, ordinal: int | None, within: InString | None
    ) -> tuple[int, int]: ...


class EventCollector:
    """Collects the events of one module in one walk."""

    def __init__(self, symbols: Symbols, index: WrapperIndex, locate: Locator) -> None:
        self.symbols = symbols
        self.locate = locate
        self.index = index
        self.short_names = index.short_names
        self.events: list[Event] = []
        self.def_lines: dict[int, int] = {}  # id(FunctionDef) -> line of its `def`
        self.counts: dict[str, int] = {}  # anchored nodes seen, by kind
        self._ordinals: dict[int, tuple[str, int | None, InString | None]] = {}
        self._pending: list[tuple[cst.CSTNode, Callable[[int, int], Event]]] = []
        self._def_nodes: dict[int, cst.FunctionDef] = {}
        self._fstrings = 0
        self._string: InString | None = None
        self._stack: list[cst.CSTNode] = []
        self._scopes: list[_Scope] = []
        self._write_targets: set[int] = set()

    # -- bookkeeping --------------------------------------------------------

    def collect(self, module: cst.Module) -> list[Event]:
        """Walk ``module`` once and return its events in source order."""
        walk(module, self._enter, self._leave)
        for key, function in self._def_nodes.items():
            self.def_lines[key] = self.locate(function, *self._ordinals[key])[0]
        for node, make in self._pending:
            self.events.append(make(*self.locate(node, *self._ordinals[id(node)])))
        return self.events

    def _enter(self, node: cst.CSTNode) -> bool:
        self._stack.append(node)
        kind = KINDS.get(type(node))
        if kind is not None:
            if self._fstrings:
                self._ordinals[id(node)] = (kind, None, self._string)  # see locate.py
            else:
                self._ordinals[id(node)] = (kind, self._count(kind), None)
        kind_of = type(node)
        if self._string is None and kind_of in _STRINGS and string_root(node):
            assert isinstance(node, cst.BaseExpression)
            self._string = InString(node, self._count("fstring"), self._indent())
        if kind_of is cst.FormattedString:
            self._fstrings += 1
        elif kind_of is cst.FunctionDef:
            assert isinstance(node, cst.FunctionDef)
            self._def_nodes[id(node)] = node
        handler = _ENTER.get(type(node))
        if handler is not None:
            handler(self, node)
        return True

    def _leave(self, node: cst.CSTNode) -> None:
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.Lambda or kind is cst.ClassDef:
            self._scopes.pop()
        elif kind is cst.FormattedString:
            self._fstrings -= 1
        if self._string is not None and node is self._string.root:
            self._string = None
        self._stack.pop()

    def _count(self, kind: str) -> int:
        """The next ordinal of ``kind``, counting this node."""
        ordinal = self.counts.get(kind, 0)
        self.counts[kind] = ordinal + 1
        return ordinal

    def _indent(self) -> str:
        """The whole indentation of the innermost block being walked."""
        module = self._stack[0]
        assert isinstance(module, cst.Module)
        return "".join(
            module.default_indent if node.indent is None else node.indent
            for node in self._stack
            if isinstance(node, cst.IndentedBlock)
        )

    def _push(self, node: cst.CSTNode, name: str, *, is_class: bool, params: Sequence[str]) -> None:
        parent = self._scopes[-1] if self._scopes else None
        if parent is None:
            qualname = name
        elif parent.is_class:
            qualname = f"{parent.qualname}.{name}"
        else:
            qualname = f"{parent.qualname}.<locals>.{name}"
        shadowed = (parent.shadowed if parent else frozenset()) | frozenset(params)
        method_class = None
        if parent is not None and parent.is_class and not is_class:
            module = self.symbols.module
            method_class = f"{module}.{parent.qualname}" if module else parent.qualname
        self._scopes.append(_Scope(node, qualname, is_class, shadowed, method_class))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = [p.name.value for p in param_list(node.params)]
        self._push(node, node.name.value, is_class=False, params=params)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        params = [p.name.value for p in param_list(node.params)]
        self._push(node, "<lambda>", is_class=False, params=params)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._push(node, node.name.value, is_class=True, params=())

    @property
    def _shadowed(self) -> frozenset[str]:
        return self._scopes[-1].shadowed if self._scopes else frozenset()

    def _qualify(self, node: cst.BaseExpression) -> str | None:
        return qualify(self.symbols, node, self._shadowed)

    # -- events -------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self._qualify(node.func)
        if qualified in READ_CALLS:
            name, _ = read_arguments(node)
            self._record(READ_CALLS[qualified], node, name)
        elif qualified in WRITE_CALLS:
            name, _ = read_arguments(node)
            self._record(WRITE_CALLS[qualified], node, name)
        elif self.short_names:
            self._wrapper_call(node, qualified)

    def _wrapper_call(self, node: cst.Call, qualified: str | None) -> None:
        if cst_name(node) not in self.short_names:
            return
        found = find_wrapper(self.index, node.func, self._method_class(), qualified)
        if found is not None:
            wrapper, bound = found
            self._record(ReadKind.WRAPPER, node, None, wrapper=wrapper, bound=bound)

    def _method_class(self) -> str | None:
        for scope in reversed(self._scopes):
            if not scope.is_class:
                return scope.method_class
        return None

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self._write_targets or self._qualify(node.value) != ENVIRON:
            return
        self._record(ReadKind.SUBSCRIPT, node, subscript_name(node))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if contains_environ(node, self._qualify):
            self._record(ReadKind.CONTAINS, node, node.left)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._write_target(target.target, WriteKind.SET)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._write_target(node.target, WriteKind.SET)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._write_target(node.target, WriteKind.SET)

    def visit_Del(self, node: cst.Del) -> None:
        self._write_target(node.target, WriteKind.DELETE)

    def _write_target(self, target: cst.BaseExpression, kind: WriteKind) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._write_target(element.value, kind)
        elif isinstance(target, cst.Subscript) and self._qualify(target.value) == ENVIRON:
            self._write_targets.add(id(target))
            self._stack.append(target)
            self._record(kind, target, subscript_name(target))
            self._stack.pop()

    def _record(
        self,
        kind: ReadKind | WriteKind,
        node: cst.CSTNode,
        name: cst.BaseExpression | None,
        *,
        wrapper: Wrapper | None = None,
        bound: bool = False,
    ) -> None:
        unit, function = self._unit()
        scopes = tuple(
            s.node for s in self._scopes if isinstance(s.node, cst.FunctionDef | cst.Lambda)
        )
        target = frozenset(id(n) for n in self._stack)
        chain = self._chain(node)

        def make(line: int, column: int) -> Event:
            return Event(
                kind=kind,
                node=node,
                name=name,
                line=line,
                column=column,
                function=function,
                unit=unit,
                scopes=scopes,
                target=target,
                chain=chain,
                wrapper=wrapper,
                bound=bound,
            )

        self._pending.append((node, make))

    def _chain(self, node: cst.CSTNode) -> tuple[int, ...]:
        ids: list[int] = []
        for ancestor in reversed(self._stack):
            if ancestor is not node and isinstance(ancestor, (cst.Lambda, *_BOUNDARIES)):
                break
            if isinstance(ancestor, cst.BaseExpression):
                ids.append(id(ancestor))
        return tuple(ids)

    def _unit(self) -> tuple[Unit, str]:
        stack = self._stack
        scopes = {id(s.node): s for s in self._scopes}
        for i in range(len(stack) - 2, -1, -1):
            owner, child = stack[i], stack[i + 1]
            if isinstance(owner, cst.FunctionDef | cst.Lambda) and child is owner.body:
                scope = scopes[id(owner)]
                return Unit(owner, (), scope.method_class), scope.qualname
            # A module- or class-level read is judged on its own statement: what follows
            # it in the file is not the scanner's to run (and narrowing may drop it).
            if isinstance(owner, cst.ClassDef) and child is owner.body and i + 2 < len(stack):
                return Unit(None, (stack[i + 2],)), scopes[id(owner)].qualname
            if isinstance(owner, cst.Module):
                return Unit(None, (child,)), "<module>"
        return Unit(None, ()), "<module>"


_ENTER: dict[type[cst.CSTNode], Callable[[EventCollector, Any], None]] = {
    cst.FunctionDef: EventCollector.visit_FunctionDef,
    cst.Lambda: EventCollector.visit_Lambda,
    cst.ClassDef: EventCollector.visit_ClassDef,
    cst.Call: EventCollector.visit_Call,
    cst.Subscript: EventCollector.visit_Subscript,
    cst.Comparison: EventCollector.visit_Comparison,
    cst.Assign: EventCollector.visit_Assign,
    cst.AugAssign: EventCollector.visit_AugAssign,
    cst.AnnAssign: EventCollector.visit_AnnAssign,
    cst.Del: EventCollector.visit_Del,
}
