"""Which wrapper a call's callee names."""

from __future__ import annotations

import libcst as cst

from scanner.syntax.index import Wrapper, WrapperIndex


def find_wrapper(
    index: WrapperIndex,
    func: cst.BaseExpression,
    method_class: str | None,
    qualified: str | None,
) -> tuple[Wrapper, bool] | None:
    """The wrapper a callee names, and whether it is a bound method call: ``self.f`` or
    ``cls.f`` in a method of ``method_class``, else the callee's ``qualified`` name."""
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value in ("self", "cls")
        and method_class is not None
    ):
        found = index.lookup(f"{method_class}.{func.attr.value}")
        return (found, True) if found is not None else None
    found = index.lookup(qualified) if qualified is not None else None
    return (found, False) if found is not None else None
