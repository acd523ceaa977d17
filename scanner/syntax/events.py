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

from scanner.accessors import (
    ENVIRON,
    ENVIRON_COPIES,
    ENVIRON_UPDATE,
    PARTIAL_CALLS,
    READ_CALLS,
    WRITE_CALLS,
    accessor_kind,
)
from scanner.model import ReadKind, WriteKind
from scanner.syntax.callee import find_wrapper
from scanner.syntax.fields import READ, field_use
from scanner.syntax.index import CLASS, Wrapper, WrapperIndex
from scanner.syntax.locate import KINDS, InString, cst_name, string_root
from scanner.syntax.namespace import Symbols
from scanner.syntax.reads import contains_environ, read_arguments, subscript_name
from scanner.syntax.scopes import ScopeNode, body_statements, param_list
from scanner.syntax.symbols import qualify
from scanner.syntax.walk import walk

_STRINGS = (cst.FormattedString, cst.ConcatenatedString)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
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
class Binding:
    """Where the value around a read goes: ``X = ...`` (global or local), ``self.x = ...``
    (attr), a keyword argument, or a function's return."""

    name: str
    store: str  # "global", "local", "attr", "other", "keyword", "return"
    value: cst.BaseExpression | None  # the assigned expression, for assignments


@dataclass(frozen=True, slots=True, kw_only=True)
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
    loops: tuple[tuple[cst.BaseExpression, cst.BaseExpression], ...] = field(
        default=(), repr=False
    )  # (target, iterable) of the loops and comprehensions around it, innermost first
    binding: Binding | None = None  # what its value is bound to (variable, attribute, ...)
    value: cst.BaseExpression | None = None  # a write's value
    field: str | None = None  # the registry's attribute, for a use of a field (``wrapper``)

    @property
    def is_read(self) -> bool:
        return isinstance(self.kind, ReadKind)


@dataclass(slots=True, kw_only=True)
class _Scope:
    node: cst.CSTNode
    qualname: str
    is_class: bool
    shadowed: frozenset[str]  # parameters of this and the enclosing functions
    method_class: str | None
    copies: set[str] = field(default_factory=set)  # locals holding a copy of the environment


class Locator(Protocol):
    """Where a node starts: ``(line, 1-based column)``, from its kind and pre-order ordinal
    (None inside an f-string, and then ``within`` is the outermost f-string around it)."""

    def __call__(
        self, node: cst.CSTNode, kind: str, ordinal: int | None, within: InString | None
    ) -> tuple[int, int]: ...


class EventCollector:
    """Collects the events of one module in one walk."""

    def __init__(
        self,
        symbols: Symbols,
        index: WrapperIndex,
        locate: Locator,
        accessors: tuple[str, ...] = (),
    ) -> None:
        self.symbols = symbols
        self.accessors = accessors  # more callables to take as accessors, by name
        self.locate = locate
        self.index = index
        self.short_names = index.short_names
        self.registry_names = frozenset(w.short_name for w in index.registries.values())
        self.events: list[Event] = []
        self.def_lines: dict[int, int] = {}  # id(FunctionDef or ClassDef) -> line of its name
        self.def_qualnames: dict[int, str] = {}  # id(FunctionDef) -> Class.f, f.<locals>.g
        self.method_classes: dict[int, str] = {}  # id(FunctionDef) of a method -> its class
        self.counts: dict[str, int] = {}  # anchored nodes seen, by kind
        self._ordinals: dict[int, tuple[str, int | None, InString | None]] = {}
        self._pending: list[tuple[cst.CSTNode, Callable[[int, int], Event]]] = []
        self._def_nodes: dict[int, cst.FunctionDef | cst.ClassDef] = {}
        self._fstrings = 0
        self._string: InString | None = None
        self._stack: list[cst.CSTNode] = []
        self._scopes: list[_Scope] = []
        self._write_targets: set[int] = set()
        self._guards: set[int] = set()  # membership tests that only guard an unset
        self._module_copies: set[str] = set()

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
        elif kind_of is cst.FunctionDef or kind_of is cst.ClassDef:
            assert isinstance(node, cst.FunctionDef | cst.ClassDef)
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
        self._scopes.append(
            _Scope(
                node=node,
                qualname=qualname,
                is_class=is_class,
                shadowed=shadowed,
                method_class=method_class,
            )
        )
        if not is_class and isinstance(node, cst.FunctionDef):
            self.def_qualnames[id(node)] = qualname
            if method_class is not None:
                self.method_classes[id(node)] = method_class

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
        func = node.func
        if self.registry_names and self._field_call(node):
            return
        qualified = self._qualify(func)
        if qualified in READ_CALLS:
            name, _ = read_arguments(node)
            self._record(READ_CALLS[qualified], node, name)
        elif qualified in WRITE_CALLS:
            name, value = read_arguments(node)
            self._record(WRITE_CALLS[qualified], node, name, value=value)
        elif qualified == ENVIRON_UPDATE:
            self._update(node)
        elif (
            isinstance(func, cst.Attribute)
            and func.attr.value == "get"
            and self._is_copy(func.value)
        ):
            name, _ = read_arguments(node)
            self._record(ReadKind.GET, node, name)
        elif qualified in PARTIAL_CALLS:
            if self.short_names:
                self._partial_call(node)
        elif not (self.short_names and self._wrapper_call(node, qualified)):
            self._accessor_call(node, qualified)

    def _field_call(self, node: cst.Call) -> bool:
        """Record ``R.X.method(...)`` on a field ``X`` of a registry ``R``: a read or a
        write as the method does one (see ``scanner.syntax.fields``); whether it was one."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute)):
            return False
        field = func.value
        base = field.value
        last = base.value if isinstance(base, cst.Name) else None
        if isinstance(base, cst.Attribute):
            last = base.attr.value
        if last is None:
            return False
        if last not in self.registry_names:
            imported = self.symbols.imports.get(last) if isinstance(base, cst.Name) else None
            if imported is None or imported.rsplit(".", 1)[-1] not in self.registry_names:
                return False
        qualified = self._qualify(base)
        if qualified is None and isinstance(base, cst.Name) and base.value not in self._shadowed:
            # A module-level name of this module: the registry's own module uses ``envs``.
            module = self.symbols.module
            qualified = f"{module}.{base.value}" if module else base.value
        self._stack.extend((func, field))  # what fields.field_use looks up from the field
        use = field_use(self.index, field, self._stack, qualified)
        del self._stack[-2:]
        if use is None:
            return False
        if use.effect == READ:
            self._record(ReadKind.FIELD, node, None, wrapper=use.registry, field=use.attribute)
        elif isinstance(use.effect, WriteKind):
            self._record(
                use.effect, node, None, wrapper=use.registry, field=use.attribute, value=use.value
            )
        return True

    def _update(self, node: cst.Call) -> None:
        """``os.environ.update({"A": "1"}, B="2")``: a write of each name written out, and
        one of unknown name for any other mapping."""
        for arg in node.args:
            value = arg.value
            if arg.keyword is not None:
                name = cst.SimpleString(repr(arg.keyword.value))
                self._record(WriteKind.SET, node, name, value=value)
            elif not arg.star and isinstance(value, cst.Dict):
                for element in value.elements:
                    if isinstance(element, cst.DictElement):
                        self._record(WriteKind.SET, node, element.key, value=element.value)
                    else:
                        self._record(WriteKind.SET, node, None)
            else:
                self._record(WriteKind.SET, node, None)

    def _partial_call(self, node: cst.Call) -> None:
        """``functools.partial(wrapper, "NAME", default)``: the call it binds, read at the
        partial (it is called later, by whoever holds it: a ``default_factory``)."""
        args = node.args
        if len(args) < 2 or any(a.star or a.keyword is not None for a in args[:2]):
            return
        if not isinstance(args[1].value, cst.SimpleString):
            return  # a name only the caller knows
        bound = cst.Call(func=args[0].value, args=args[1:])
        self._wrapper_call(bound, self._qualify(bound.func), at=node)

    def _wrapper_call(
        self,
        node: cst.Call,
        qualified: str | None,
        *,
        at: cst.Call | None = None,
    ) -> bool:
        """Record a call of a wrapper, a descriptor class or a setter; whether it was one
        (``at``: the partial that binds ``node``, where it is read; a plain function's)."""
        imported = qualified.rsplit(".", 1)[-1] if qualified is not None else None
        if cst_name(node) not in self.short_names and imported not in self.short_names:
            return False
        found = False
        for setter in (False,) if at is not None else (False, True):
            match = find_wrapper(
                self.index,
                node.func,
                self._method_class(),
                qualified,
                symbols=self.symbols,
                scopes=self._function_scopes(),
                setter=setter,
            )
            if match is None:
                continue
            wrapper, bound = match
            if at is not None and (bound or wrapper.method or wrapper.kind == CLASS):
                continue
            found = True
            if setter:
                self._record(WriteKind.SET, node, None, wrapper=wrapper, bound=bound)
            else:
                kind = ReadKind.DESCRIPTOR if wrapper.kind == CLASS else ReadKind.WRAPPER
                # judged as ``lambda: wrapper("NAME", ...)``, what the partial stands for
                unit = None if at is None else Unit(cst.Lambda(cst.Parameters(), node))
                self._record(kind, node, None, wrapper=wrapper, bound=bound, at=at, unit=unit)
        return found

    def _accessor_call(self, node: cst.Call, qualified: str | None) -> None:
        """A callable named like an environment accessor, imported from outside the tree
        (a compiled module such as Triton's ``libtriton``): a read."""
        func = node.func
        if isinstance(func, cst.Name):
            if func.value in self._shadowed or func.value in self.symbols.functions:
                return  # a parameter, or a function of this module that is no wrapper
        elif qualified is None:
            return
        short = cst_name(node)
        if accessor_kind(short, self.accessors) is None or (qualified or "").startswith("os."):
            return
        name, _ = read_arguments(node)
        self._record(ReadKind.ACCESSOR, node, name)

    def _function_scopes(self) -> tuple[str, ...]:
        """Qualified names of the enclosing functions, innermost first."""
        module = self.symbols.module
        return tuple(
            f"{module}.{s.qualname}" if module else s.qualname
            for s in reversed(self._scopes)
            if not s.is_class
        )

    def _is_copy(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` names a local copy of the environment (or its ``.keys()``)."""
        if (
            isinstance(node, cst.Call)
            and not node.args
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "keys"
        ):
            node = node.func.value
        if not isinstance(node, cst.Name):
            return False
        for scope in reversed(self._scopes):
            if node.value in scope.copies:
                return True
            if not scope.is_class:
                break
        return node.value in self._module_copies

    def _method_class(self) -> str | None:
        for scope in reversed(self._scopes):
            if not scope.is_class:
                return scope.method_class
        return None

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self._write_targets:
            return
        if self._qualify(node.value) == ENVIRON or self._is_copy(node.value):
            self._record(ReadKind.SUBSCRIPT, node, subscript_name(node))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if id(node) in self._guards:
            return
        copy = (
            len(node.comparisons) == 1
            and isinstance(node.comparisons[0].operator, cst.In | cst.NotIn)
            and self._is_copy(node.comparisons[0].comparator)
        )
        if copy or contains_environ(node, self._qualify):
            self._record(ReadKind.CONTAINS, node, node.left)

    def visit_If(self, node: cst.If) -> None:
        # `if k in os.environ: del os.environ[k]` in a setter (k a parameter) unsets k:
        # part of the write, not a read of its own.
        test = node.test
        if not (isinstance(test, cst.Comparison) and contains_environ(test, self._qualify)):
            return
        if not (isinstance(test.left, cst.Name) and test.left.value in self._shadowed):
            return
        key = self._code(test.left)
        statements = body_statements(node.body)
        if statements and all(self._deletes(s, key) for s in statements):
            self._guards.add(id(test))

    def _deletes(self, statement: cst.CSTNode, key: str) -> bool:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, cst.Del) and isinstance(small.target, cst.Subscript):
                name = subscript_name(small.target)
                if name is not None and self._code(name) == key:
                    continue
            return False
        return True

    def _code(self, node: cst.CSTNode) -> str:
        module = self._stack[0]
        assert isinstance(module, cst.Module)
        return module.code_for_node(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._write_target(target.target, WriteKind.SET, node.value)
            if isinstance(target.target, cst.Name) and self._copies_environ(node.value):
                self._copies().add(target.target.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._write_target(node.target, WriteKind.SET, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._write_target(node.target, WriteKind.SET, node.value)

    def visit_Del(self, node: cst.Del) -> None:
        self._write_target(node.target, WriteKind.DELETE, None)

    def _copies(self) -> set[str]:
        for scope in reversed(self._scopes):
            if not scope.is_class:
                return scope.copies
        return self._module_copies

    def _copies_environ(self, value: cst.BaseExpression) -> bool:
        """``os.environ.copy()``, ``dict(os.environ)``, ``{**os.environ}``."""
        if isinstance(value, cst.Call):
            if self._qualify(value.func) in ENVIRON_COPIES:
                return True
            return (
                isinstance(value.func, cst.Name)
                and value.func.value == "dict"
                and len(value.args) == 1
                and self._qualify(value.args[0].value) == ENVIRON
            )
        if isinstance(value, cst.Dict) and len(value.elements) == 1:
            element = value.elements[0]
            return isinstance(element, cst.StarredDictElement) and (
                self._qualify(element.value) == ENVIRON
            )
        return False

    def _write_target(
        self, target: cst.BaseExpression, kind: WriteKind, value: cst.BaseExpression | None
    ) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._write_target(element.value, kind, None)
        elif isinstance(target, cst.Subscript):
            if self._qualify(target.value) == ENVIRON:
                self._write_targets.add(id(target))
                self._stack.append(target)
                self._record(kind, target, subscript_name(target), value=value)
                self._stack.pop()
            elif self._is_copy(target.value):
                self._write_targets.add(id(target))  # the copy's, for a child process

    def _record(
        self,
        kind: ReadKind | WriteKind,
        node: cst.CSTNode,
        name: cst.BaseExpression | None,
        *,
        wrapper: Wrapper | None = None,
        bound: bool = False,
        value: cst.BaseExpression | None = None,
        field: str | None = None,
        at: cst.CSTNode | None = None,
        unit: Unit | None = None,
    ) -> None:
        own, function = self._unit()
        unit = unit or own
        scopes = tuple(
            s.node for s in self._scopes if isinstance(s.node, cst.FunctionDef | cst.Lambda)
        )
        target = frozenset(id(n) for n in self._stack)
        loops = self._loops(node)
        if at is None:
            chain, binding = self._chain(node), self._binding(node)
        else:  # a partial's call: its value is what the call gives, bound to nothing yet
            chain, binding = (id(node),), None

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
                loops=loops,
                binding=binding,
                value=value,
                field=field,
            )

        self._pending.append((node if at is None else at, make))

    def _loops(
        self, node: cst.CSTNode
    ) -> tuple[tuple[cst.BaseExpression, cst.BaseExpression], ...]:
        """The ``for`` loops and comprehension clauses around ``node`` in its scope."""
        found: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        stack = self._stack
        for at in range(len(stack) - 1, 0, -1):
            owner, child = stack[at - 1], stack[at]
            if isinstance(owner, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                break
            if (isinstance(owner, cst.For) and child is owner.body) or (
                isinstance(owner, cst.CompFor) and child is not owner.iter
            ):
                found.append((owner.target, owner.iter))
            elif isinstance(owner, _COMPREHENSIONS) and child is not owner.for_in:
                clause: cst.CompFor | None = owner.for_in
                while clause is not None:
                    found.append((clause.target, clause.iter))
                    clause = clause.inner_for_in
        return tuple(dict.fromkeys(found))

    def _binding(self, node: cst.CSTNode) -> Binding | None:
        """What the value around ``node`` is bound to: an assignment's target, a keyword
        argument, or the function that returns it."""
        for ancestor in reversed(self._stack):
            if isinstance(ancestor, cst.Assign | cst.AnnAssign):
                targets = (
                    [t.target for t in ancestor.targets]
                    if isinstance(ancestor, cst.Assign)
                    else [ancestor.target]
                )
                value = ancestor.value
                for target in targets:
                    if isinstance(target, cst.Name):
                        store = "global" if not self._in_function() else "local"
                        return Binding(target.value, store, value)
                    if isinstance(target, cst.Attribute):
                        owner = target.value
                        is_self = isinstance(owner, cst.Name) and owner.value == "self"
                        return Binding(target.attr.value, "attr" if is_self else "other", value)
                return None
            if isinstance(ancestor, cst.Arg) and ancestor.keyword is not None:
                return Binding(ancestor.keyword.value, "keyword", None)
            if isinstance(ancestor, cst.Return):
                scope = next((s for s in reversed(self._scopes) if not s.is_class), None)
                if scope is None:
                    return None
                return Binding(scope.qualname.rsplit(".", 1)[-1], "return", None)
            if isinstance(ancestor, cst.BaseCompoundStatement | cst.Module | cst.Lambda):
                return None
        return None

    def _in_function(self) -> bool:
        return any(not s.is_class for s in self._scopes)

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
    cst.If: EventCollector.visit_If,
    cst.Assign: EventCollector.visit_Assign,
    cst.AugAssign: EventCollector.visit_AugAssign,
    cst.AnnAssign: EventCollector.visit_AnnAssign,
    cst.Del: EventCollector.visit_Del,
}
