"""Which wrapper or setter a call's callee names."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from scanner.syntax.index import Wrapper, WrapperIndex
from scanner.syntax.namespace import Symbols


def find_wrapper(
    index: WrapperIndex,
    func: cst.BaseExpression,
    method_class: str | None,
    qualified: str | None,
    *,
    symbols: Symbols | None = None,
    scopes: Sequence[str] = (),
    setter: bool = False,
) -> tuple[Wrapper, bool] | None:
    """The wrapper (or setter) a callee names, and whether it is a bound method call.

    Tried in turn: ``self.f`` or ``cls.f`` in a method of ``method_class``; the
    callee's ``qualified`` name; for a bare name bound by no import, a function
    nested in one of the enclosing functions ``scopes`` (qualified names, innermost
    first), then a name a star import of ``symbols`` may bring.
    """
    lookup = index.lookup_setter if setter else index.lookup
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value in ("self", "cls")
        and method_class is not None
    ):
        found = lookup(f"{method_class}.{func.attr.value}")
        return (found, True) if found is not None else None
    if qualified is not None:
        found = lookup(qualified)
        return (found, False) if found is not None else None
    if not isinstance(func, cst.Name):
        return None
    name = func.value
    table = index.setters if setter else index.wrappers
    for scope in scopes:
        found = table.get(f"{scope}.<locals>.{name}")
        if found is not None:
            return found, False
    for module in symbols.star_modules if symbols is not None else ():
        found = lookup(f"{module}.{name}")
        if found is not None:
            return found, False
    return None
