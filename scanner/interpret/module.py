"""A parsed module and the per-module context its analysis shares."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from scanner.interpret.evaluate import Evaluator
from scanner.interpret.frames import (
    Bindings,
    Frame,
    Resolver,
    collect_bindings,
    module_bindings,
)
from scanner.interpret.values import UNKNOWN, V
from scanner.source.anchors import AnchorMismatch, Anchors
from scanner.source.narrow import Narrowed
from scanner.syntax.events import Event, EventCollector
from scanner.syntax.index import WrapperIndex
from scanner.syntax.locate import AnchorLocator, ProviderLocator
from scanner.syntax.namespace import Symbols
from scanner.syntax.scopes import ScopeNode, param_list
from scanner.syntax.symbols import collect_symbols

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
)
_CONSTANT_TYPES = (str, int, float, bool, type(None), tuple, frozenset)


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
    _resolvers_index: WrapperIndex | None = None

    anchors: Anchors | None = None
    def_lines: dict[int, int] = field(default_factory=dict)
    _events: tuple[WrapperIndex, list[Event]] | None = None

    @classmethod
    def parse(
        cls, rel: str, module_name: str, text: str, narrowed: Narrowed | None = None
    ) -> ParsedModule:
        """Parse ``text`` (or its narrowed form); raises libcst.ParserSyntaxError.

        With ``narrowed``, libcst sees only the statements that matter, and the
        module's functions and ambiguous names come from the whole file.
        """
        tree = cst.parse_module(narrowed.text if narrowed is not None else text)
        is_package = rel.endswith("__init__.py")
        symbols = collect_symbols(tree, module_name, is_package)
        if narrowed is not None:
            symbols = replace(symbols, functions=symbols.functions | narrowed.functions)
        parsed = cls(rel, module_name, tree, MetadataWrapper(tree, unsafe_skip_copy=True), symbols)
        parsed.anchors = narrowed.anchors if narrowed is not None else None
        ambiguous = narrowed.ambiguous if narrowed is not None else frozenset()
        parsed.symbols = replace(symbols, constants=parsed._constants(ambiguous))
        return parsed

    def events(self, index: WrapperIndex) -> list[Event]:
        """Every read, write and call to a wrapper of ``index`` in this module."""
        if self._events is not None and self._events[0] is index:
            return self._events[1]
        collector = None
        if self.anchors is not None:
            try:
                collector = EventCollector(self.symbols, index, AnchorLocator(self.anchors))
                collector.collect(self.tree)
                self.anchors.check_counts(collector.counts)
            except AnchorMismatch:
                collector = None
        if collector is None:
            positions = self.wrapper.resolve(PositionProvider)
            collector = EventCollector(self.symbols, index, ProviderLocator(positions))
            collector.collect(self.tree)
        self.def_lines = collector.def_lines
        self._events = (index, collector.events)
        return collector.events

    def def_line(self, function: cst.FunctionDef) -> int:
        """The line of ``function``'s ``def`` (after ``events`` ran)."""
        return self.def_lines[id(function)]

    def bindings(self, scope: ScopeNode) -> Bindings:
        found = self._scope_bindings.get(id(scope))
        if found is None:
            found = collect_bindings(scope)
            self._scope_bindings[id(scope)] = found
        return found

    def resolver(self, event: Event, index: WrapperIndex) -> Frame:
        """A flow-insensitive frame for the innermost scope around ``event``."""
        if self._resolvers_index is not index:
            self._resolvers = {}  # they evaluate calls with the wrappers of the old index
            self._resolvers_index = index
        parent: Resolver | None = None
        for scope in event.scopes:
            found = self._resolvers.get(id(scope))
            if found is None:
                evaluator = Evaluator(index, bindings_cache=self.bindings_cache)
                method_class = event.unit.method_class if scope is event.unit.scope else None
                found = Resolver(
                    self.symbols, self.bindings(scope), evaluator.evaluate, parent, method_class
                )
                self._resolvers[id(scope)] = found
            parent = found
        if parent is not None:
            return parent
        return Frame(self.symbols, {})

    def _constants(self, ambiguous: frozenset[str]) -> dict[str, object]:
        collector_bindings = module_bindings(self.tree)
        evaluator = Evaluator(WrapperIndex(), bindings_cache=self.bindings_cache)
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


def flow_frame(parsed: ParsedModule, event: Event, evaluator: Evaluator) -> Frame:
    """A fresh flow-sensitive frame for running ``event``'s unit, parameters bound.

    A parameter stands for its default value (UNKNOWN without one), marked as
    parameter-derived.
    """
    scope = event.unit.scope
    if scope is None:
        return Frame(parsed.symbols, {})
    frame = Frame(
        parsed.symbols,
        {},
        scope_names=parsed.bindings(scope).assigned,
        method_class=event.unit.method_class,
    )
    for param in param_list(scope.params):
        name = param.name.value
        default = evaluator.evaluate(param.default, frame).value if param.default else UNKNOWN
        frame.assign(name, V(default, params=frozenset({name})))
    return frame
