"""What one run of the interpreter probes, and what every run on one module shares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import libcst as cst

from scanner.interpret.values import V

Loader = Callable[[str], object]  # qualified name of an imported constant -> value or None


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    """The variable a run studies, the value it is given, and where its read stands."""

    knob: str | None = None
    value: str | None = None  # None: the variable is unset
    site: int | None = None  # id of the node of the site under study
    site_name: cst.BaseExpression | None = None  # the expression naming the site's variable
    target: frozenset[int] = frozenset()  # ids of the nodes enclosing the site
    chain: frozenset[int] = frozenset()  # ids of the expressions enclosing the site
    # Module-level names bound to a probed value.
    overrides: Mapping[str, V] = field(default_factory=lambda: MappingProxyType({}))
    explore: bool = False  # run both branches of an undecided test (to find names)


NO_PROBE = Probe()


@dataclass(frozen=True, slots=True, kw_only=True)
class ModuleFacts:
    """What the evaluators of one module share: its caches, imported constants and names."""

    # The names each scope binds, by the scope's id (filled as scopes are run).
    bindings: dict[int, frozenset[str]] = field(default_factory=dict)
    loader: Loader | None = None
    accessors: tuple[str, ...] = ()  # more callables the project names as accessors
    # Calls assigned to an attribute in a class body, by id: what ``__set_name__`` gets.
    attributes: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    shared: dict[object, Any] | None = None  # what the probes of one file share
    # The module's converter of a name (``scanner.interpret.converters``), or None.
    converter: Callable[[str], cst.FunctionDef | None] | None = None
