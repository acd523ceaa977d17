"""Uses of a registry's fields: ``envs.SGLANG_X.get()``, ``Envs.SGLANG_X.set(v)``.

A registry (``scanner.syntax.index``) is a class whose attributes are descriptors, or
an instance of one. A method called on one of its fields reads the variable when the
method reads it (``get``, ``is_set``), writes it when the method writes it whenever it
runs (``set``, ``override``, ``clear``: such a write wins over the reads it makes to
restore or check; a write under a condition, as sglang's ``get`` of a renamed variable
copies the old name's value to the new one, leaves the method a read);
the field alone (``knobs.cache.dir``) is a read when its class has ``__get__``, and
else is the descriptor object itself, handed on (``envs.X.default`` reads nothing).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst

from scanner.accessors import ENVIRON, READ_CALLS, WRITE_CALLS, accessor_kind
from scanner.model import WriteKind
from scanner.syntax.index import ATTRIBUTE, CLASS, Wrapper, WrapperIndex
from scanner.syntax.namespace import Symbols
from scanner.syntax.scopes import body_statements
from scanner.syntax.symbols import dotted, qualify
from scanner.syntax.walk import nodes

MAX_SELF_CALLS = 3  # methods followed through ``self.other(...)`` to find what one does
READ = "read"


@dataclass(frozen=True, slots=True)
class FieldUse:
    """One use of a registry's field: the node that is the site (the method call, or the
    attribute), and what it does: READ, a ``WriteKind``, or None for nothing."""

    registry: Wrapper
    attribute: str
    node: cst.CSTNode
    effect: str | WriteKind | None
    value: cst.BaseExpression | None = None  # what a write sets: the call's first argument


def field_use(
    index: WrapperIndex,
    node: cst.Attribute,
    stack: list[cst.CSTNode],
    qualified_base: str | None,
) -> FieldUse | None:
    """The use ``node`` (``R.X``, at the top of ``stack``) makes of a registry's field,
    given what ``R`` qualifies to; None when ``R.X`` is no field of a registry."""
    if qualified_base is None:
        return None
    registry = index.lookup_registry(qualified_base)
    if registry is None:
        return None
    attribute = node.attr.value
    names = dict(registry.fields).get(attribute)
    parent = stack[-2] if len(stack) >= 2 else None
    grand = stack[-3] if len(stack) >= 3 else None
    if names is None and registry.name_param == ATTRIBUTE and not attribute.startswith("_"):
        assert isinstance(grand, cst.Call)
        return FieldUse(registry, attribute, grand, READ)  # no field of it: a dynamic read
    declared = next((d for a, d in _declared(registry) if a == attribute), None)
    if declared is None or not names:
        return None
    descriptor = index.lookup(declared) if declared else None
    model = _methods(descriptor) if descriptor is not None and descriptor.kind == CLASS else {}
    if (
        isinstance(parent, cst.Attribute)
        and parent.value is node
        and isinstance(grand, cst.Call)
        and grand.func is parent
    ):
        assert descriptor is not None or not model
        effect = _effect(model, parent.attr.value, descriptor.symbols if descriptor else None)
        value = grand.args[0].value if grand.args and not grand.args[0].star else None
        return FieldUse(registry, attribute, grand, effect, value)
    effect = READ if "__get__" in model else None
    return FieldUse(registry, attribute, node, effect)


def _declared(registry: Wrapper) -> tuple[tuple[str, str], ...]:
    """Each field of ``registry`` with the qualified class its declaration calls."""
    symbols = registry.symbols
    return tuple(
        (attr, qualify(symbols, func) or "") for attr, func in _declared_in(registry.source)
    )


@lru_cache(maxsize=64)
def _declared_in(source: str) -> tuple[tuple[str, cst.BaseExpression], ...]:
    found: list[tuple[str, cst.BaseExpression]] = []
    for statement in cst.parse_module(source).body:
        if not isinstance(statement, cst.ClassDef):
            continue
        for line in body_statements(statement.body):
            if not isinstance(line, cst.SimpleStatementLine):
                continue
            for small in line.body:
                if not isinstance(small, cst.Assign | cst.AnnAssign) or small.value is None:
                    continue
                target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
                value = small.value
                if isinstance(target, cst.Name) and isinstance(value, cst.Call):
                    found.append((target.value, value.func))
    return tuple(found)


def _methods(descriptor: Wrapper) -> dict[str, cst.FunctionDef]:
    """The methods of a descriptor class and its bases in its source, the nearest first."""
    return _methods_in(descriptor.source)


@lru_cache(maxsize=256)
def _methods_in(source: str) -> dict[str, cst.FunctionDef]:
    found: dict[str, cst.FunctionDef] = {}
    classes = [s for s in cst.parse_module(source).body if isinstance(s, cst.ClassDef)]
    for node in reversed(classes):  # the source holds the bases first, the class last
        for statement in body_statements(node.body):
            if isinstance(statement, cst.FunctionDef):
                found.setdefault(statement.name.value, statement)
    return found


def _effect(
    methods: dict[str, cst.FunctionDef], name: str, symbols: Symbols | None, depth: int = 0
) -> str | WriteKind | None:
    """What calling the method ``name`` does to the variable: a write (the first kind
    found), else READ, else None."""
    method = methods.get(name)
    if method is None or symbols is None or depth > MAX_SELF_CALLS:
        return None
    read = False
    always = {id(n) for s in _unconditional(body_statements(method.body)) for n in nodes(s)}
    for node in nodes(method.body):
        if id(node) not in always:
            read = read or _environ(node, symbols) or _read_call(node, symbols)
            continue
        if isinstance(node, cst.Call):
            qualified = qualify(symbols, node.func)
            if qualified in WRITE_CALLS:
                return WRITE_CALLS[qualified]
            if qualified in READ_CALLS or _accessor(node.func):
                read = True
            elif _self_call(node.func) is not None:
                found = _effect(methods, _self_call(node.func) or "", symbols, depth + 1)
                if isinstance(found, WriteKind):
                    return found
                read = read or found == READ
        elif isinstance(node, cst.Assign | cst.Del):
            targets: list[cst.BaseExpression] = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for target in targets:
                if isinstance(target, cst.Subscript) and qualify(symbols, target.value) == ENVIRON:
                    return WriteKind.SET if isinstance(node, cst.Assign) else WriteKind.DELETE
        elif _environ(node, symbols):
            read = True
    return READ if read else None


def _unconditional(statements: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """The statements that run whenever these do: not under ``if``, a loop or ``try``
    (a ``with`` block's run)."""
    for statement in statements:
        if isinstance(statement, cst.With):
            yield from _unconditional(body_statements(statement.body))
        elif isinstance(statement, cst.SimpleStatementLine):
            yield statement


def _environ(node: cst.CSTNode, symbols: Symbols) -> bool:
    """``os.environ[...]`` or ``... in os.environ``: a read."""
    if isinstance(node, cst.Subscript):
        return qualify(symbols, node.value) == ENVIRON
    if isinstance(node, cst.ComparisonTarget):
        return qualify(symbols, node.comparator) == ENVIRON
    return False


def _read_call(node: cst.CSTNode, symbols: Symbols) -> bool:
    return isinstance(node, cst.Call) and (
        qualify(symbols, node.func) in READ_CALLS or _accessor(node.func)
    )


def _accessor(func: cst.BaseExpression) -> bool:
    """A callable named like an environment accessor (Triton's ``getenv_bool``)."""
    short = func.attr.value if isinstance(func, cst.Attribute) else dotted(func)
    return accessor_kind(short) is not None


def _self_call(func: cst.BaseExpression) -> str | None:
    if (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "self"
    ):
        return func.attr.value
    return None
