"""A parsed module and the per-module context its analysis shares."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from scanner.interpret.converters import find_converter
from scanner.interpret.evaluate import Evaluator
from scanner.interpret.frames import (
    Bindings,
    Frame,
    Resolver,
    collect_bindings,
    module_bindings,
)
from scanner.interpret.objects import parse_classes
from scanner.interpret.probe import NO_PROBE, ModuleFacts, Probe
from scanner.interpret.values import UNKNOWN, V
from scanner.source.anchors import AnchorMismatch, Anchors
from scanner.source.constants import ConstantLoader
from scanner.source.narrow import Narrowed
from scanner.syntax.events import Event, EventCollector, Locator
from scanner.syntax.index import CLASS, REGISTRY, Wrapper, WrapperIndex
from scanner.syntax.locate import AnchorLocator, LineMapped, ProviderLocator
from scanner.syntax.namespace import Symbols
from scanner.syntax.scopes import ScopeNode, body_statements, param_list
from scanner.syntax.symbols import collect_symbols
from scanner.syntax.walk import children, nodes

# Module-level values worth computing as constants: literals and simple arithmetic on them.
_CONSTANT_FORMS = (
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Integer,
    cst.Float,
    cst.Tuple,
    cst.List,
    cst.Set,
    cst.Name,
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.Dict,
)
_CONSTANT_TYPES = (str, int, float, bool, type(None), tuple, frozenset, dict)


@dataclass
class ParsedModule:
    """One file's tree, symbols and caches, alive while the file is analysed."""

    rel: str
    module_name: str
    tree: cst.Module
    wrapper: MetadataWrapper
    symbols: Symbols
    bindings_cache: dict[int, frozenset[str]] = field(default_factory=dict)
    _scope_bindings: dict[int, Bindings] = field(default_factory=dict)
    _resolvers: dict[int, Resolver] = field(default_factory=dict)
    _resolvers_key: frozenset[int] | None = None
    _called: frozenset[str] | None = None
    text: str = ""  # the text parsed (narrowed or whole)

    anchors: Anchors | None = None
    def_lines: dict[int, int] = field(default_factory=dict)
    def_qualnames: dict[int, str] = field(default_factory=dict)
    method_classes: dict[int, str] = field(default_factory=dict)
    loader: ConstantLoader | None = None  # what other modules of the tree define
    unfollowed: frozenset[str] = frozenset()  # stored names whose uses were not kept
    accessors: tuple[str, ...] = ()  # more callables the project names as accessors
    _events: tuple[frozenset[int], list[Event]] | None = None
    _strings: dict[int, tuple[str, ...]] = field(default_factory=dict)
    _nodes: dict[int, dict[int, cst.CSTNode]] = field(default_factory=dict)
    _users: dict[tuple[str, str], list[tuple[cst.CSTNode, str | None]]] | None = None
    lines: tuple[int, ...] | None = None  # the file's line of each line of the text (a group)
    fell_back: bool = False  # the narrowed text's anchors did not match: positions from libcst
    # Lambdas that are values of a module-level dict, by id, with their string key (see
    # scanner.interpret.decisions); found once, when a read first sits in a lambda.
    registry_keys: dict[int, str] | None = None
    _attributes: dict[int, str] | None = None
    # What declarations of one template share (``scanner.interpret.registries``).
    shared: dict[object, Any] = field(default_factory=dict)
    _converters: dict[str, cst.FunctionDef | None] = field(default_factory=dict)

    @classmethod
    def parse(
        cls,
        rel: str,
        module_name: str,
        text: str,
        narrowed: Narrowed | None = None,
        loader: ConstantLoader | None = None,
        accessors: tuple[str, ...] = (),
        lines: tuple[int, ...] | None = None,
    ) -> ParsedModule:
        """Parse ``text`` (or its narrowed form); raises libcst.ParserSyntaxError.

        With ``narrowed``, libcst sees only the statements that matter, and the
        module's functions and ambiguous names come from the whole file. ``lines``: the
        text is some of the file's lines (a group of statements), whose numbers these are.
        """
        tree = cst.parse_module(narrowed.text if narrowed is not None else text)
        is_package = rel.endswith("__init__.py")
        symbols = collect_symbols(tree, module_name, is_package)
        if narrowed is not None:
            symbols = replace(symbols, functions=symbols.functions | narrowed.functions)
        parsed = cls(rel, module_name, tree, MetadataWrapper(tree, unsafe_skip_copy=True), symbols)
        parsed.anchors = narrowed.anchors if narrowed is not None else None
        parsed.unfollowed = narrowed.unfollowed if narrowed is not None else frozenset()
        parsed.loader = loader
        parsed.text = narrowed.text if narrowed is not None else text
        parsed.accessors = accessors
        parsed.lines = lines
        ambiguous = narrowed.ambiguous if narrowed is not None else frozenset()
        constants = parsed._constants(ambiguous)
        parsed.symbols = replace(
            symbols, constants=constants, class_constants=parsed._class_constants(constants)
        )
        return parsed

    def events(self, index: WrapperIndex) -> list[Event]:
        """Every read, write and call to a wrapper of ``index`` in this module (walked
        again only when the wrappers this module calls changed)."""
        key = self._called_facts(index)
        if self._events is not None and self._events[0] == key:
            return self._events[1]
        collector = None
        # What the module's names are, for the events and the evaluation that judges them.
        symbols = self.symbols = self._registry_symbols(index)
        if self.anchors is not None:
            try:
                collector = EventCollector(
                    symbols, index, self._mapped(AnchorLocator(self.anchors)), self.accessors
                )
                collector.collect(self.tree)
                self.anchors.check_counts(collector.counts)
            except AnchorMismatch:
                collector = None
                self.fell_back = True
        if collector is None:
            positions = self.wrapper.resolve(PositionProvider)
            collector = EventCollector(
                symbols, index, self._mapped(ProviderLocator(positions)), self.accessors
            )
            collector.collect(self.tree)
        self.def_lines = collector.def_lines
        self.def_qualnames = collector.def_qualnames
        self.method_classes = collector.method_classes
        self._events = (key, collector.events)
        return collector.events

    def _registry_symbols(self, index: WrapperIndex) -> Symbols:
        """The module's symbols, with an imported name that is a registry of ``index``
        through a re-export of an import bound to the registry's own name
        (``from sglang.srt.utils import envs``: ``utils`` star-imports a module that
        imports ``envs`` from ``sglang.srt.environ``)."""
        if self.loader is None or not index.registries:
            return self.symbols
        shorts = {w.short_name for w in index.registries.values()}
        remapped: dict[str, str] = {}
        for local, target in self.symbols.imports.items():
            if target.rsplit(".", 1)[-1] not in shorts or index.lookup_registry(target):
                continue
            origin = self.loader.origin(target)
            if origin is not None and origin != target and index.lookup_registry(origin):
                remapped[local] = origin
        if not remapped:
            return self.symbols
        return replace(self.symbols, imports={**self.symbols.imports, **remapped})

    def _mapped(self, locate: AnchorLocator | ProviderLocator) -> Locator:
        return LineMapped(locate, self.lines) if self.lines is not None else locate

    def _called_facts(self, index: WrapperIndex) -> frozenset[int]:
        """The wrappers and setters of ``index`` this module calls by name (their ids):
        the events depend on nothing else of the index."""
        if self._called is None:
            names = set(_CALLED.findall(self.text))
            # A registry is named, not called: ``envs.SGLANG_X.get()``.
            names.update(_USED_BASE.findall(self.text))
            # A wrapper bound by ``partial(wrapper, "NAME")`` is called later, where it is read.
            names.update(_BOUND.findall(self.text))
            imports = self.symbols.imports
            names.update(imports[n].rsplit(".", 1)[-1] for n in list(names) if n in imports)
            self._called = frozenset(names)
        return frozenset(id(w) for w in index.facts if w.short_name in self._called)

    def def_line(self, function: cst.FunctionDef) -> int:
        """The line of ``function``'s ``def`` (after ``events`` ran)."""
        return self.def_lines[id(function)]

    def class_line(self, node: cst.ClassDef) -> int:
        """The line of a class's ``class`` (after ``events`` ran)."""
        return self.def_lines[id(node)]

    def def_qualname(self, function: cst.FunctionDef) -> str:
        """``Class.method`` or ``outer.<locals>.inner`` (after ``events`` ran)."""
        return self.def_qualnames[id(function)]

    def method_class_of(self, function: cst.FunctionDef) -> str | None:
        """The qualified class of a method, None for a function (after ``events`` ran)."""
        return self.method_classes.get(id(function))

    def bindings(self, scope: ScopeNode) -> Bindings:
        found = self._scope_bindings.get(id(scope))
        if found is None:
            found = collect_bindings(scope)
            self._scope_bindings[id(scope)] = found
        return found

    def resolver(self, event: Event, index: WrapperIndex) -> Frame:
        """A flow-insensitive frame for the innermost scope around ``event``."""
        key = self._called_facts(index)
        if self._resolvers_key != key:
            self._resolvers = {}  # they evaluate calls with the wrappers of the old index
            self._resolvers_key = key
        parent: Resolver | None = None
        for scope in event.scopes:
            found = self._resolvers.get(id(scope))
            if found is None:
                evaluator = self.evaluator(index)
                method_class = event.unit.method_class if scope is event.unit.scope else None
                found = Resolver(
                    self.symbols, self.bindings(scope), evaluator.evaluate, parent, method_class
                )
                self._resolvers[id(scope)] = found
            parent = found
        if parent is not None:
            return parent
        return Frame(self.symbols, {})

    def evaluator(self, index: WrapperIndex, probe: Probe = NO_PROBE) -> Evaluator:
        """An evaluator for this module's code (its caches, its imported constants and the
        project's accessors), for ``probe``."""
        facts = ModuleFacts(
            bindings=self.bindings_cache,
            loader=self.loader,
            accessors=self.accessors,
            attributes=self.attributes(),
            shared=self.shared,
            converter=self.converter,
        )
        return Evaluator(index, probe, facts)

    def converter(self, name: str) -> cst.FunctionDef | None:
        """The small module-level function ``name`` that a value is handed through, or None."""
        return find_converter(self.tree, name, self._converters)

    def attributes(self) -> dict[int, str]:
        """The calls assigned to a name in a class body (``X = EnvBool(True)``), by id,
        with that name: what a descriptor's ``__set_name__`` is given."""
        if self._attributes is None:
            found: dict[int, str] = {}
            pending = [s for s in self.tree.body if isinstance(s, cst.ClassDef)]
            while pending:
                for line in body_statements(pending.pop().body):
                    if isinstance(line, cst.ClassDef):
                        pending.append(line)
                    elif isinstance(line, cst.SimpleStatementLine):
                        for small in line.body:
                            target = _assigned_call(small)
                            if target is not None:
                                found[id(target[1])] = target[0]
            self._attributes = found
        return self._attributes

    def functions(self) -> list[tuple[cst.FunctionDef, str | None]]:
        """The module-level functions and the methods of module-level classes, each with
        its qualified class (None for a function)."""
        found: list[tuple[cst.FunctionDef, str | None]] = []
        prefix = f"{self.module_name}." if self.module_name else ""
        for statement in self.tree.body:
            if isinstance(statement, cst.FunctionDef):
                found.append((statement, None))
            elif isinstance(statement, cst.ClassDef):
                owner = prefix + statement.name.value
                found.extend(
                    (s, owner)
                    for s in body_statements(statement.body)
                    if isinstance(s, cst.FunctionDef)
                )
        return found

    def users(self, name: str, store: str) -> list[tuple[cst.CSTNode, str | None]]:
        """The module-level statements and the functions (with their method's class) that
        decide something with ``name`` (store "global") or ``self.name`` (store "attr"):
        compare it, branch on it, combine it with and/or/not. (Narrowing keeps the same
        statements: see ``scanner.source.narrow``.)"""
        if self._users is None:
            index: dict[tuple[str, str], list[tuple[cst.CSTNode, str | None]]] = {}
            consumers: list[tuple[cst.CSTNode, str | None]] = [
                (s, None) for s in self.tree.body if isinstance(s, cst.SimpleStatementLine)
            ]
            consumers.extend(self.functions())
            for consumer, method_class in consumers:
                root = consumer.body if isinstance(consumer, cst.FunctionDef) else consumer
                for key in _tested_names(root):
                    index.setdefault(key, []).append((consumer, method_class))
            self._users = index
        return self._users.get((name, store), [])

    def compared_strings(self, root: cst.CSTNode) -> tuple[str, ...]:
        """The string literals compared with in ``root`` (both sides, inside collections)."""
        found = self._strings.get(id(root))
        if found is None:
            strings: list[str] = []
            for node in nodes(root):
                if isinstance(node, cst.Comparison):
                    for part in (node.left, *(c.comparator for c in node.comparisons)):
                        strings.extend(strings_of(part))
            found = tuple(dict.fromkeys(strings))
            self._strings[id(root)] = found
        return found

    def node_in(self, root: cst.CSTNode, node_id: int) -> cst.CSTNode | None:
        """The node of ``root`` (itself included) whose id is ``node_id`` (one walk of
        ``root``, kept)."""
        found = self._nodes.get(id(root))
        if found is None:
            found = self._nodes[id(root)] = {id(node): node for node in nodes(root)}
        return found.get(node_id)

    def wrapper_roots(self, wrapper: Wrapper) -> list[cst.CSTNode]:
        """The code a call of ``wrapper`` runs, to look for compared strings in."""
        if wrapper.kind == CLASS:
            return list(parse_classes(wrapper.source).values())
        if wrapper.kind == REGISTRY:
            return []  # its fields' classes: the words of a switch are probed anyway
        return [wrapper.function()]

    def _class_constants(self, constants: dict[str, object]) -> dict[str, dict[str, object]]:
        """Plain constants assigned in the bodies of module-level classes."""
        evaluator = Evaluator(WrapperIndex(), module=ModuleFacts(bindings=self.bindings_cache))
        frame = Frame(replace(self.symbols, constants=constants), {})
        found: dict[str, dict[str, object]] = {}
        for statement in self.tree.body:
            if not isinstance(statement, cst.ClassDef):
                continue
            attrs: dict[str, object] = {}
            for line in body_statements(statement.body):
                if not isinstance(line, cst.SimpleStatementLine):
                    continue
                for small in line.body:
                    if not isinstance(small, cst.Assign | cst.AnnAssign) or small.value is None:
                        continue
                    targets = (
                        [t.target for t in small.targets]
                        if isinstance(small, cst.Assign)
                        else [small.target]
                    )
                    if len(targets) != 1 or not isinstance(targets[0], cst.Name):
                        continue
                    if not isinstance(small.value, _CONSTANT_FORMS):
                        continue
                    value = evaluator.evaluate(small.value, frame)
                    if value.plain and isinstance(value.value, _CONSTANT_TYPES):
                        attrs[targets[0].value] = value.value
            if attrs:
                found[statement.name.value] = attrs
        return found

    def _constants(self, ambiguous: frozenset[str]) -> dict[str, object]:
        collector_bindings = module_bindings(self.tree)
        evaluator = self.evaluator(WrapperIndex())
        resolver = Resolver(self.symbols, collector_bindings, evaluator.evaluate)
        constants: dict[str, object] = {}
        for name, values in collector_bindings.values.items():
            if len(values) != 1 or name in ambiguous or not isinstance(values[0], _CONSTANT_FORMS):
                continue
            found = resolver.lookup(name)
            if (
                found is not None
                and found.known
                and isinstance(found.value, _CONSTANT_TYPES)
                and not found.params
            ):
                constants[name] = found.value
        return constants


def _assigned_call(small: cst.BaseSmallStatement) -> tuple[str, cst.Call] | None:
    """``name = call(...)`` or ``name: T = call(...)``: the name and the call."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        target, value = small.target, small.value
    else:
        return None
    if isinstance(target, cst.Name) and isinstance(value, cst.Call):
        return target.value, value
    return None


_TESTING = (cst.Comparison, cst.BooleanOperation)
_CALLED = re.compile(r"(?<!def )\b([A-Za-z_]\w*)\s*\(")  # a name called (not defined)
_USED_BASE = re.compile(r"\b([A-Za-z_]\w*)\s*\.")  # a name whose attribute is taken
_BOUND = re.compile(r"\bpartial\(\s*(?:#[^\n]*\s*)*(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\s*,")


def _tested_names(root: cst.CSTNode) -> set[tuple[str, str]]:
    """The names (store "global") and ``self`` attributes (store "attr") that ``root``
    compares, branches on, or combines with and/or/not (as ``narrow._tested_names`` finds
    them in the ast, in one pass)."""
    found: set[tuple[str, str]] = set()
    pending: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while pending:
        node, testing = pending.pop()
        if testing:
            if isinstance(node, cst.Name):
                found.add((node.value, "global"))
            elif (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.value.value == "self"
            ):
                found.add((node.attr.value, "attr"))
        if isinstance(node, cst.If | cst.While | cst.IfExp | cst.Assert):
            pending.extend((child, testing or child is node.test) for child in children(node))
            continue
        inside = (
            testing
            or isinstance(node, _TESTING)
            or (isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not))
        )
        pending.extend((child, inside) for child in children(node))
    return found


MAX_CHOICE_LENGTH = 64  # a longer string compared with is a message, not a choice


def strings_of(node: cst.BaseExpression) -> list[str]:
    """The short string literals ``node`` is, or holds as a tuple, list or set."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return [value] if isinstance(value, str) and len(value) <= MAX_CHOICE_LENGTH else []
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        return [s for e in node.elements for s in strings_of(e.value)]
    return []


def flow_frame(parsed: ParsedModule, event: Event, evaluator: Evaluator) -> Frame:
    """A fresh flow-sensitive frame for running ``event``'s unit, parameters bound.

    A parameter stands for its default value (UNKNOWN without one), marked as
    parameter-derived.
    """
    scope = event.unit.scope
    if scope is None:
        return Frame(parsed.symbols, {})
    module = parsed.module_name
    frame = Frame(
        parsed.symbols,
        {},
        scope_names=parsed.bindings(scope).assigned,
        method_class=event.unit.method_class,
        qualname=f"{module}.{event.function}" if module else event.function,
    )
    for param in param_list(scope.params):
        name = param.name.value
        default = evaluator.evaluate(param.default, frame).value if param.default else UNKNOWN
        frame.assign(name, V(value=default, params=frozenset({name})))
    return frame
