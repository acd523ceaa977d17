"""A field of a class whose default a factory gives: the value it holds when not given.

``autotune_effort: str = dataclasses.field(default_factory=functools.partial(_env_get_literal,
"X", "full", mapping=...))`` (pytorch/helion ef091f4 helion/runtime/settings.py:546-553): an
instance built without the field holds what the factory returns, which is the read's value
(a ``partial`` of a wrapper is read where it stands, and judged as the call it binds); a
factory function that reads (``default_factory=_get_ref_mode``, :564) holds what that
function returns. The field is then read as an attribute of the instance, wherever it goes
(``self.kernel.settings.autotune_effort == "none"``, runtime/kernel.py:2431).
"""

from __future__ import annotations

import ast
from typing import Final

from scanner.reach.modules import Module

# The calls that declare a field and take a factory of its default, by qualified name, with
# the keyword the factory is given as (dataclasses: https://docs.python.org/3/library/
# dataclasses.html#dataclasses.field; pydantic: Field(default_factory=...); attrs:
# attrs.field(factory=...)).
FIELD_CALLS: Final = {
    "dataclasses.field": "default_factory",
    "pydantic.Field": "default_factory",
    "pydantic.fields.Field": "default_factory",
    "attrs.field": "factory",
    "attr.ib": "factory",
    "attr.attrib": "factory",
    "attr.field": "factory",
}


def factory_field(module: Module, keyword: ast.keyword) -> str | None:
    """The field whose default factory ``keyword`` gives, where it is that keyword of a
    field declaration that an annotated name of a class body takes (``x: T =
    field(default_factory=f)``); None otherwise."""
    call = module.parent(keyword)
    if not isinstance(call, ast.Call) or not any(k is keyword for k in call.keywords):
        return None
    if FIELD_CALLS.get(module.resolve(call.func) or "") != keyword.arg:
        return None
    statement = module.parent(call)
    if not (
        isinstance(statement, ast.AnnAssign)
        and statement.value is call
        and isinstance(statement.target, ast.Name)
        and isinstance(module.parent(statement), ast.ClassDef)
    ):
        return None
    return statement.target.id
