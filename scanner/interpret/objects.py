"""Functions and objects as values: closures, and instances of descriptor classes.

A nested ``def`` or a lambda evaluates to a ``Closure`` that keeps the frame it
was defined in, so a factory's returned function reads the factory's arguments.
Constructing a class of the scanned tree (a descriptor such as Triton's
``env_bool("TRITON_DEBUG")``) gives an ``Instance`` whose attributes ``__init__``
set, with ``super().__init__`` followed through the classes of its source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst

from scanner.interpret.values import Opaque, V
from scanner.syntax.namespace import Symbols

if TYPE_CHECKING:
    from scanner.interpret.frames import Frame

ScopeNode = cst.FunctionDef | cst.Lambda


class Closure(Opaque):
    """A function value: its definition and the frame around it."""

    __slots__ = ("frame", "method_class", "node", "qualname", "symbols")

    def __init__(
        self,
        node: ScopeNode,
        frame: Frame | None,
        symbols: Symbols,
        qualname: str,
        method_class: str | None = None,
    ) -> None:
        self.node = node
        self.frame = frame
        self.symbols = symbols
        self.qualname = qualname
        self.method_class = method_class

    def __repr__(self) -> str:
        return f"<function {self.qualname}>"


@dataclass(frozen=True)
class ClassModel:
    """The classes of one source text, with a method lookup along their bases."""

    name: str
    classes: dict[str, cst.ClassDef]
    symbols: Symbols

    @property
    def module(self) -> str:
        return self.symbols.module

    def mro(self, start: str | None = None) -> list[str]:
        """The class and its bases found in the source, depth first, left to right;
        after ``start`` when given (what ``super()`` searches)."""
        order: list[str] = []
        pending = [self.name]
        while pending:
            current = pending.pop(0)
            if current in order or current not in self.classes:
                continue
            order.append(current)
            pending[0:0] = [b for b in _base_names(self.classes[current]) if b in self.classes]
        if start is not None and start in order:
            return order[order.index(start) + 1 :]
        return order

    def method(
        self, name: str, start: str | None = None, at: str | None = None
    ) -> tuple[str, cst.FunctionDef] | None:
        """The class defining ``name`` first along the MRO (after ``start``, or from the
        class ``at``), and the definition."""
        order = ClassModel(at, self.classes, self.symbols).mro() if at else self.mro(start)
        for owner in order:
            for statement in _body(self.classes[owner]):
                if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                    return owner, statement
        return None

    def attribute(self, name: str) -> cst.BaseExpression | None:
        """The value of a plain class-level assignment ``name = value`` along the MRO."""
        for owner in self.mro():
            for statement in _body(self.classes[owner]):
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    target = _assigned(small)
                    if target == name and isinstance(small, cst.Assign | cst.AnnAssign):
                        return small.value
        return None


@dataclass(eq=False)
class Instance(Opaque):
    """An object under construction or in use: its class and the attributes set so far."""

    model: ClassModel
    attrs: dict[str, V] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<{self.model.name} object>"


@lru_cache(maxsize=512)
def parse_classes(source: str) -> dict[str, cst.ClassDef]:
    """The module-level classes of a source text, by name (parsed once per process)."""
    module = cst.parse_module(source)
    return {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}


def _base_names(node: cst.ClassDef) -> list[str]:
    found: list[str] = []
    for arg in node.bases:
        value = arg.value
        if isinstance(value, cst.Subscript):  # Generic[...], env_base[str, str]
            value = value.value
        if isinstance(value, cst.Name):
            found.append(value.value)
        elif isinstance(value, cst.Attribute):
            found.append(value.attr.value)
    return found


def _body(node: cst.ClassDef) -> tuple[cst.BaseStatement | cst.BaseSmallStatement, ...]:
    body = node.body
    if isinstance(body, cst.IndentedBlock | cst.SimpleStatementSuite):
        return tuple(body.body)
    return ()


def _assigned(small: cst.BaseSmallStatement) -> str | None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        return target.value if isinstance(target, cst.Name) else None
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        return small.target.value if isinstance(small.target, cst.Name) else None
    return None
