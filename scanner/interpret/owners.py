"""Which function a read's name comes from: the one whose parameter it is."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from scanner.interpret.module import ParsedModule
from scanner.syntax.events import Event
from scanner.syntax.scopes import param_list

NEVER_NAMES = frozenset({"self", "cls"})  # the object a method runs on names no variable


@dataclass(frozen=True, slots=True, kw_only=True)
class Owner:
    """The function a name parameter belongs to, and where it stands."""

    function: cst.FunctionDef
    qualname: str  # within the module
    param: str
    method_class: str | None


def owner_of(parsed: ParsedModule, event: Event, depends: set[str]) -> Owner | None:
    """The innermost function around ``event`` that has one of ``depends`` as a parameter."""
    depends = depends - NEVER_NAMES
    if not depends:
        return None
    for scope in reversed(event.scopes):
        if not isinstance(scope, cst.FunctionDef):
            continue
        params = [p.name.value for p in param_list(scope.params)]
        param = next((p for p in params if p in depends), None)
        if param is None:
            continue
        name = scope.name.value
        if name.startswith("__") and name.endswith("__"):
            return None  # never called by its name (a constructor makes a descriptor)
        qualname = parsed.def_qualname(scope)
        method_class = parsed.method_class_of(scope)
        return Owner(function=scope, qualname=qualname, param=param, method_class=method_class)
    return None
