"""Named units of a module's code, and a digest of each that comments, formatting,
docstrings and positions do not change.

A unit is named as a path of the names the code binds: ``f``, ``C.m``, ``f.inner`` (every
definition of that name in its namespace, those under an ``if`` or a ``try`` included),
``NAME`` (every module-level statement that binds it: ``FLAG = os.environ.get(...)``),
``TABLE[KEY]`` (the value of one entry of a module-level dict literal, such as vLLM's
table of lambdas), or ``<module>`` (the module's own statements, definitions left out).
A function's digest also covers the module-level assignments and imports of the global
names it loads (a block size, an autotuning table, which kernel an import names), so that
changing what it computes with changes it too.

The digest is made from a form of the ``ast`` that is the same on every Python this
project runs on (3.10 and later): node types and fields, without positions, without
docstrings, and without the empty fields newer Pythons add (``type_params``).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

MODULE = "<module>"
_FORMAT = b"knobs-code-1\n"  # changes when the normal form does: every digest changes with it
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BODIES = (*_DEFINITIONS, ast.Module)
_SKIPPED_FIELDS = frozenset({"type_comment", "kind"})


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit of a module as the code has it now: where it starts, and its digest."""

    name: str
    line: int  # 1-based: the first `def` of a definition, the key of a dict entry
    digest: str  # 16 hexadecimal digits


class Units:
    """The units of one parsed module (its module-level names indexed once)."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._top: dict[str, list[ast.stmt]] | None = None

    def unit(self, name: str) -> Unit | None:
        """The unit ``name``; None when the module has no such code."""
        found = nodes(self.tree, name)
        if not found:
            return None
        try:
            text = "\n".join(_canonical(n) for n in found)
            if name != MODULE and "[" not in name:
                text += self._globals(found)
        except RecursionError:  # nested deeper than the normal form is written: no unit
            return None
        line = min(getattr(n, "lineno", 1) for n in found)
        data = _FORMAT + text.encode("utf-8", "surrogatepass")
        return Unit(name, line, hashlib.sha256(data).hexdigest()[:16])

    def _globals(self, nodes: Sequence[ast.AST]) -> str:
        """The module-level assignments and imports of the names ``nodes`` load, in a normal
        form (an import: only the name it binds; a definition: left to its own unit)."""
        if self._top is None:
            self._top = {}
            for statement in _blocks(self.tree.body):
                if not isinstance(statement, _DEFINITIONS):
                    for bound in _names_bound(statement):
                        self._top.setdefault(bound, []).append(statement)
        loaded = {
            n.id
            for node in nodes
            for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        parts = []
        for name in sorted(loaded & self._top.keys()):
            for statement in self._top[name]:
                if isinstance(statement, ast.Import | ast.ImportFrom):
                    aliases = [
                        a for a in statement.names if (a.asname or a.name).split(".")[0] == name
                    ]
                    module = statement.module if isinstance(statement, ast.ImportFrom) else None
                    level = statement.level if isinstance(statement, ast.ImportFrom) else 0
                    shown = ",".join(f"{a.name} as {a.asname}" for a in aliases)
                    parts.append(f"{name}: import {level}:{module}:{shown}")
                else:
                    parts.append(f"{name}: {_canonical(statement)}")
        return "".join("\n" + p for p in parts)


def unit(tree: ast.Module, name: str) -> Unit | None:
    """The unit ``name`` of the module ``tree``; None when the module has no such code."""
    return Units(tree).unit(name)


def unit_around(tree: ast.Module, chain: Sequence[ast.AST]) -> str:
    """The name of the unit a node sits in, from the nodes around it (``chain``: innermost
    first, the module last): its definitions, or the dict entry of a module-level table."""
    names = [n.name for n in chain if isinstance(n, _DEFINITIONS)]
    if names:
        return ".".join(reversed(names))
    entry = _entry_around(tree, chain)
    if entry is not None:
        return entry
    top = next((n for n in reversed(chain) if isinstance(n, ast.stmt)), None)
    bound = sorted(_names_bound(top)) if top is not None else []
    return bound[0] if len(bound) == 1 else MODULE


def _entry_around(tree: ast.Module, chain: Sequence[ast.AST]) -> str | None:
    """``TABLE[KEY]`` when the node lies in the value of a string-keyed entry of a dict
    assigned to one module name."""
    for inner, outer in pairwise(chain):
        if isinstance(outer, ast.Dict) and inner in outer.values:
            key = outer.keys[outer.values.index(inner)]
            statement = chain[chain.index(outer) + 1 :]
            top = next((s for s in statement if isinstance(s, ast.stmt)), None)
            target = _single_target(top) if top is not None else None
            if (
                isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and "]" not in key.value
                and target is not None
                and top in tree.body
                and getattr(top, "value", None) is outer
            ):
                return f"{target}[{key.value}]"
            return None
    return None


def _single_target(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def nodes(tree: ast.Module, name: str) -> list[ast.AST]:
    """The nodes of the unit ``name`` (its definitions, statements or table entry)."""
    if name == MODULE:
        return list(_module_statements(tree.body))
    if name.endswith("]") and "[" in name:
        table, _, key = name[:-1].partition("[")
        return list(_entries(tree, table, key))
    first, *rest = name.split(".")
    found: list[ast.AST] = list(_bound(tree.body, first))
    if rest:
        found = [d for d in found if isinstance(d, _DEFINITIONS)]
    for part in rest:
        found = [
            d for outer in found for d in _bound(_body(outer), part) if isinstance(d, _DEFINITIONS)
        ]
    return found


def _body(node: ast.AST) -> list[ast.stmt]:
    body = getattr(node, "body", [])
    return body if isinstance(body, list) else []


def _blocks(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a namespace: its block, and the blocks of the ``if``, ``try``,
    ``with`` and loops in it (not the bodies of the definitions in it)."""
    for statement in body:
        yield statement
        if isinstance(statement, _DEFINITIONS):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                yield from _blocks(
                    [
                        s
                        for i in inner
                        for s in (i.body if isinstance(i, ast.ExceptHandler) else [i])
                    ]
                )


def _bound(body: Iterable[ast.stmt], name: str) -> Iterator[ast.stmt]:
    """The statements of a namespace that bind ``name``."""
    for statement in _blocks(body):
        if isinstance(statement, _DEFINITIONS):
            if statement.name == name:
                yield statement
        elif name in _names_bound(statement):
            yield statement


def _names_bound(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*"}
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        targets = [statement.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _entries(tree: ast.Module, table: str, key: str) -> Iterator[ast.expr]:
    for statement in tree.body:
        value = getattr(statement, "value", None)
        if _single_target(statement) == table and isinstance(value, ast.Dict):
            for k, v in zip(value.keys, value.values, strict=True):
                if isinstance(k, ast.Constant) and k.value == key:
                    yield v


def _module_statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements, definitions left out (and its docstring)."""
    for statement in _without_docstring(body):
        if not isinstance(statement, _DEFINITIONS):
            yield statement


def _without_docstring(body: Sequence[ast.stmt]) -> Sequence[ast.stmt]:
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:]
    return body


def _canonical(node: ast.AST) -> str:
    """``node`` in the normal form: the same text for the same code, on every Python."""
    out: list[str] = []
    _write(node, out)
    return "".join(out)


def _write(item: object, out: list[str]) -> None:
    if isinstance(item, ast.AST):
        out.append("(" + type(item).__name__)
        for field in item._fields:
            if field in _SKIPPED_FIELDS:
                continue
            value = getattr(item, field, None)
            if field == "body" and isinstance(item, _BODIES):
                value = _without_docstring(item.body)
            if value is None or (isinstance(value, list) and not value):
                continue
            out.append(f" {field}=")
            _write(value, out)
        out.append(")")
    elif isinstance(item, list):
        out.append("[")
        for index, element in enumerate(item):
            if index:
                out.append(",")
            _write(element, out)
        out.append("]")
    else:
        out.append(repr(item))
