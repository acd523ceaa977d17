"""Descriptors as values: building one, naming it, and the fields of a registry.

A descriptor class of the tree is constructed (``__init__`` through its bases); one
named by ``__set_name__`` is then given the attribute it is assigned to in a class
body, as Python does when the class body ends (sglang's ``SGLANG_X = EnvBool(True)``
in ``class Envs``). A registry's field (``envs.SGLANG_X``) is the descriptor its
declaration builds, and reading it through an attribute runs ``__get__`` where the
class defines one (Triton's ``knobs.cache.dir``), which answers what its reader does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst

from scanner.interpret import calls
from scanner.interpret.frames import Frame
from scanner.interpret.objects import ClassModel, Instance, parse_classes
from scanner.interpret.values import UNKNOWN, V
from scanner.syntax.index import ATTRIBUTE, CLASS, Wrapper
from scanner.syntax.scopes import body_statements
from scanner.syntax.symbols import qualify

if TYPE_CHECKING:
    from scanner.interpret.evaluate import Evaluator


def construct(
    ev: Evaluator,
    wrapper: Wrapper,
    node: cst.Call,
    frame: Frame,
    *,
    attribute: str | None = None,
    read: bool = True,
) -> V:
    """The instance a call of the descriptor class ``wrapper`` builds; with ``read``, the
    value its reader gives is noted as the site's (``attribute``: the name ``__set_name__``
    is given, else the class-body attribute the call is assigned to, if any)."""
    model = ClassModel(wrapper.short_name, parse_classes(wrapper.source), wrapper.symbols)
    built_object = Instance(model)
    instance = V(value=built_object)
    init = model.method("__init__")
    if init is not None:
        built = calls.call_function(
            ev, init[1], node, frame, model.symbols, self_value=instance, owner=init[0]
        )
        if built.raised:
            return built
    if wrapper.name_param == ATTRIBUTE:
        name = attribute if attribute is not None else ev.attribute_of(node)
        set_name = model.method("__set_name__")
        if name is None or set_name is None:
            return instance  # never named: not in a class body
        given = cst.Call(cst.Name(ATTRIBUTE), [cst.Arg(cst.Name("None")), cst.Arg(_text(name))])
        calls.call_function(
            ev, set_name[1], given, frame, model.symbols, self_value=instance, owner=set_name[0]
        )
    if not read:
        return instance
    if wrapper.reader == "__init__":
        stored = next((v for v in built_object.attrs.values() if v.env), None)
        if stored is not None:
            ev.descriptor_value(node, stored)
        return instance
    reader = model.method(wrapper.reader) if wrapper.reader else None
    if reader is not None:
        value = calls.call_function(
            ev, reader[1], None, frame, model.symbols, self_value=instance, owner=reader[0]
        )
        ev.descriptor_value(node, value)
    return instance


def field_value(ev: Evaluator, registry: Wrapper, attr: str, frame: Frame) -> V | None:
    """``registry.attr``: the descriptor its declaration builds, or what ``__get__`` gives
    for it (the reader's value); None when ``attr`` is no field of the registry."""
    declared = declarations(registry.source).get(attr)
    if declared is None or not isinstance(declared, cst.Call):
        return None
    inner = Frame(registry.symbols, {}, depth=frame.depth)
    qualified = qualify(registry.symbols, declared.func)
    found = ev.lookup_wrapper(declared.func, inner, qualified)
    if found is None or found[0].kind != CLASS:
        return V(value=UNKNOWN)
    wrapper = found[0]
    instance = construct(ev, wrapper, declared, inner, attribute=attr, read=False)
    built = instance.value
    if not isinstance(built, Instance) or built.model.method("__get__") is None:
        return instance
    reader = built.model.method(wrapper.reader) if wrapper.reader else None
    if reader is None or wrapper.reader == "__init__":
        return V(value=UNKNOWN)
    return calls.call_function(
        ev, reader[1], None, inner, built.model.symbols, self_value=instance, owner=reader[0]
    )


@lru_cache(maxsize=64)
def declarations(source: str) -> dict[str, cst.BaseExpression]:
    """A registry's declarations (its source: one class of ``ATTR = value`` lines), by
    attribute (parsed once per process)."""
    module = cst.parse_module(source)
    found: dict[str, cst.BaseExpression] = {}
    for statement in module.body:
        if not isinstance(statement, cst.ClassDef):
            continue
        for line in body_statements(statement.body):
            if not isinstance(line, cst.SimpleStatementLine):
                continue
            for small in line.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name):
                        found[target.value] = small.value
                elif (
                    isinstance(small, cst.AnnAssign)
                    and small.value is not None
                    and isinstance(small.target, cst.Name)
                ):
                    found[small.target.value] = small.value
    return found


def _text(name: str) -> cst.SimpleString:
    return cst.SimpleString(repr(name))
