"""Classes the narrowing keeps whole, found with ``ast``: those that declare variables.

sglang's ``class EnvField: def __set_name__(self, owner, name): self.name = name`` takes
the variable's name from the attribute an instance is assigned to in a class body; its
subclasses (``EnvBool``, ``EnvInt``) convert the value in methods that mention no
environment word (``parse``). The narrowing keeps such classes whole, their bases and
subclasses too, and the classes whose body builds them (``SGLANG_X = EnvBool(True)``):
the analysis runs all of it. So with pydantic's settings models (``class
Settings(BaseSettings)``), whose fields name no environment word at all, and the models
their fields nest, and with dataclasses filled from the environment by a loop over
their ``fields()`` (sglang's dumper: ``for f in fields(cls)`` in a base's classmethod,
the fields and the prefix in a subclass that names no environment word).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from scanner.source.ast_walk import walk


def set_name_classes(body: Sequence[ast.stmt]) -> list[ast.ClassDef]:
    """The module-level classes that define ``__set_name__`` (with owner and name), those
    that derive from one or that one derives from, and those whose body builds one (a
    registry: ``class Envs: SGLANG_X = EnvBool(True)``), in file order."""
    classes = [s for s in body if isinstance(s, ast.ClassDef)]
    if not classes:
        return []
    chosen = {c.name for c in classes if _defines_set_name(c)}
    if not chosen:
        return []
    bases = {c.name: {_base_name(b) for b in c.bases} for c in classes}
    grown = True
    while grown:
        grown = False
        for name, of in bases.items():
            related = of & chosen
            if name not in chosen and related:
                chosen.add(name)  # a subclass
                grown = True
            if name in chosen and not of <= chosen:
                known = {b for b in of if b in bases}
                if not known <= chosen:
                    chosen |= known  # a base of the module
                    grown = True
    registries = [
        c for c in classes if c.name not in chosen and any(_builds(s, chosen) for s in c.body)
    ]
    chosen.update(c.name for c in registries)
    # The enumerations whose members the declarations take for defaults
    # (``SGLANG_X = EnvInt(GateGemvMode.PAIR)``): their values are the defaults.
    named = {
        n.id
        for c in registries
        for s in c.body
        if _builds(s, chosen)
        for n in walk(s)
        if isinstance(n, ast.Name)
    }
    chosen.update(c.name for c in classes if c.name in named and enum_kind(c) is not None)
    return [c for c in classes if c.name in chosen]


# Enumerations whose members compare equal to their values (``Mode.OFF == 0``), by the
# type of those values; a plain ``Enum``'s members equal no value.
_VALUED_ENUMS = {"IntEnum": int, "IntFlag": int, "StrEnum": str}


def enum_members(node: ast.ClassDef) -> dict[str, object]:
    """An int or str enumeration's members and the values they equal
    (``class Mode(IntEnum): OFF = 0``: ``OFF`` 0); empty for any other class."""
    kind = enum_kind(node)
    found: dict[str, object] = {}
    if kind is None:
        return found
    for line in node.body:
        if (
            isinstance(line, ast.Assign)
            and len(line.targets) == 1
            and isinstance(line.targets[0], ast.Name)
            and isinstance(line.value, ast.Constant)
            and type(line.value.value) is kind
        ):
            found[line.targets[0].id] = line.value.value
    return found


def enum_kind(node: ast.ClassDef) -> type | None:
    """The type of the values an int or str enumeration's members equal, else None."""
    for base in node.bases:
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
        if name in _VALUED_ENUMS:
            return _VALUED_ENUMS[name]
    return None


def _builds(statement: ast.stmt, chosen: set[str]) -> bool:
    """``name = Desc(...)`` with ``Desc`` one of ``chosen``."""
    value = statement.value if isinstance(statement, ast.Assign | ast.AnnAssign) else None
    return (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in chosen
    )


SETTINGS_BASE = "BaseSettings"


def settings_classes(body: Sequence[ast.stmt]) -> list[ast.ClassDef]:
    """The module-level classes deriving from ``BaseSettings`` (or from one of the
    module that does), and the classes of the module their annotations name."""
    classes = {s.name: s for s in body if isinstance(s, ast.ClassDef)}
    chosen = {n for n, c in classes.items() if SETTINGS_BASE in {_base_name(b) for b in c.bases}}
    grown = bool(chosen)
    while grown:
        grown = False
        for name, node in classes.items():
            if name not in chosen and {_base_name(b) for b in node.bases} & chosen:
                chosen.add(name)
                grown = True
    for name in list(chosen):
        for statement in classes[name].body:
            if isinstance(statement, ast.AnnAssign):
                chosen.update(n.id for n in walk(statement.annotation) if isinstance(n, ast.Name))
    return [c for c in classes.values() if c.name in chosen]


def _defines_set_name(node: ast.ClassDef) -> bool:
    return any(
        isinstance(s, ast.FunctionDef) and s.name == "__set_name__" and len(s.args.args) >= 3
        for s in node.body
    )


def _base_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def field_loop_classes(body: Sequence[ast.stmt]) -> list[ast.ClassDef]:
    """The module-level classes with a method that loops over ``fields(...)`` (in a
    ``for`` or a comprehension), with their bases and subclasses of the module."""
    classes = {s.name: s for s in body if isinstance(s, ast.ClassDef)}
    chosen = {
        name
        for name, node in classes.items()
        if any(
            isinstance(loop, ast.For | ast.comprehension)
            and isinstance(loop.iter, ast.Call)
            and _base_name(loop.iter.func) == "fields"
            for method in node.body
            if isinstance(method, ast.FunctionDef)
            for loop in walk(method)
        )
    }
    bases = {n: {_base_name(b) for b in c.bases} for n, c in classes.items()}
    grown = bool(chosen)
    while grown:
        grown = False
        for name, of in bases.items():
            if name not in chosen and of & chosen:
                chosen.add(name)  # a subclass
                grown = True
            if name in chosen and not {b for b in of if b in classes} <= chosen:
                chosen |= {b for b in of if b in classes}  # a base of the module
                grown = True
    return [c for c in classes.values() if c.name in chosen]
