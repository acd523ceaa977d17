"""Registries: classes whose attributes declare variables, and their instances.

sglang declares about 770 variables in one class body, ``class Envs: SGLANG_X =
EnvBool(True)``, and code elsewhere reads them as ``envs.SGLANG_X.get()`` through
``envs = Envs()``. Each declaration is a descriptor site of its own (its default and
verdict come from the descriptor's type and default argument); the class, and each
module-level instance of it, become a registry fact of the tree's index, which carries
the declarations to the files that read the fields (``scanner.syntax.fields``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import libcst as cst

from scanner.interpret.module import ParsedModule
from scanner.interpret.values import V
from scanner.model import ReadKind
from scanner.syntax.events import Event
from scanner.syntax.index import ATTRIBUTE, REGISTRY, Wrapper
from scanner.syntax.scopes import body_statements
from scanner.syntax.walk import nodes


def discover_registries(
    parsed: ParsedModule,
    events: Sequence[Event],
    resolved: Sequence[Sequence[V]],
    exported_by: Callable[[str], tuple[str, ...]],
    imported_by: Callable[[str], tuple[str, ...]] = lambda qualname: (),
) -> list[Wrapper]:
    """The registries ``parsed`` defines: each module-level class with descriptor
    declarations in its body whose names are known, and each module-level instance of
    one (``envs = Envs()``). ``exported_by``: qualname -> the packages re-exporting it;
    ``imported_by``: those re-exporting it through a module that imports it."""
    classes = {s.name.value: s for s in parsed.tree.body if isinstance(s, cst.ClassDef)}
    declared: dict[str, list[tuple[str, Event, tuple[str, ...]]]] = {}
    for event, names in zip(events, resolved, strict=True):
        if event.kind is not ReadKind.DESCRIPTOR or event.unit.scope is not None:
            continue
        binding = event.binding
        if binding is None or binding.value is not event.node or event.function not in classes:
            continue
        known = tuple(dict.fromkeys(n.value for n in names if n.known and isinstance(n.value, str)))
        if known:
            declared.setdefault(event.function, []).append((binding.name, event, known))
    if not declared:
        return []
    found: list[Wrapper] = []
    instances = _instances(parsed, set(declared))
    prefix = f"{parsed.module_name}." if parsed.module_name else ""
    for name, fields in declared.items():
        lines = [f"class {name}:"]
        used: set[str] = set()
        for attribute, event, _ in fields:
            code = parsed.tree.code_for_node(event.node)
            lines.append(f"    {attribute} = {code}")
            used.update(n.value for n in nodes(event.node) if isinstance(n, cst.Name))
        source = "\n".join(lines) + "\n"
        node = classes[name]
        variables = {a: names for a, _, names in fields}
        # Its other attributes and methods name no variable (``envs.X.get()`` on one of
        # them is no read). Where every declaration takes its name from the attribute,
        # the narrowing kept the class whole: an attribute it does not define at all is
        # then a dynamic read, and the registry says so (``name_param``).
        whole = all(
            e.wrapper is not None and e.wrapper.name_param == ATTRIBUTE for _, e, _ in fields
        )
        others = {a: () for a in _defined(node) if a not in variables}
        table = tuple(sorted({**variables, **others}.items()))
        for qualname in (prefix + name, *(prefix + i for i in instances.get(name, ()))):
            found.append(
                Wrapper(
                    qualname=qualname,
                    path=parsed.rel,
                    line=parsed.class_line(node),
                    name_param=ATTRIBUTE if whole else "",
                    method=False,
                    source=source,
                    symbols=parsed.symbols.restricted(used),
                    kind=REGISTRY,
                    fields=table,
                    exported_by=exported_by(qualname),
                    imported_by=imported_by(qualname),
                )
            )
    return found


Template = tuple[str, str, str]


def declaration(parsed: ParsedModule, event: Event) -> tuple[Template, str] | None:
    """A class-body declaration ``ATTR = Desc(args)`` of a descriptor that takes its
    name from the attribute: its template (the descriptor, the call's code and the
    class), and ATTR. Declarations of one template differ only by the attribute, which
    is the name they read: they share one evaluation (sglang's 770 are 125 templates)."""
    wrapper, binding = event.wrapper, event.binding
    if (
        event.kind is not ReadKind.DESCRIPTOR
        or wrapper is None
        or wrapper.name_param != ATTRIBUTE
        or event.unit.scope is not None
        or binding is None
        or binding.value is not event.node
    ):
        return None
    code = parsed.tree.code_for_node(event.node)
    return (wrapper.qualname, code, event.function), binding.name


def renamed(names: Sequence[V], old: str, new: str) -> list[V]:
    """``names`` as another declaration of the same template reads them."""
    return [replace(n, value=new) if n.known and n.value == old else n for n in names]


def _defined(node: cst.ClassDef) -> list[str]:
    """The names a class body binds: attributes, methods, nested classes."""
    found: list[str] = []
    for statement in body_statements(node.body):
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            found.append(statement.name.value)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = small.targets if isinstance(small, cst.Assign) else ()
                for target in targets:
                    if isinstance(target.target, cst.Name):
                        found.append(target.target.value)
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    found.append(small.target.value)
    return found


def _instances(parsed: ParsedModule, classes: set[str]) -> dict[str, list[str]]:
    """The module-level names bound to an instance of one of ``classes``: ``envs = Envs()``."""
    found: dict[str, list[str]] = {}
    for statement in parsed.tree.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                _instance(small, classes, found)
    return found


def _instance(small: cst.CSTNode, classes: set[str], found: dict[str, list[str]]) -> None:
    if not isinstance(small, cst.Assign | cst.AnnAssign) or small.value is None:
        return
    value = small.value
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
        return
    if value.func.value not in classes:
        return
    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
    for target in targets:
        if isinstance(target, cst.Name):
            found.setdefault(value.func.value, []).append(target.value)
