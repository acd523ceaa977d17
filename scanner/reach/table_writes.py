"""The entries of a launch-environment table that the tree's own loop installs.

Megatron-Bridge's recipes write ``cfg.env_vars = {"NVTE_CUTEDSL_FUSED_GROUPED_MLP": 1, ...}``
(src/megatron/bridge/recipes/qwen/gb200/qwen3_moe.py:84-95), and its training entry installs
them: ``for name, value in cfg.env_vars.items(): os.environ.setdefault(name, str(value))``
(training/config.py:1984-1989). The scan knows that function as a setter whose write has no
name of its own; the names and values are the table's. An attribute whose ``.items()`` a
setter's loop hands, key as the name, to a write of the environment is such a table wherever
the tree fills it: assigned a dict literal (``x.F = {...}``), one key at a time
(``x.F["K"] = v``), or updated (``x.F.update({...})``). Each entry with a constant name and a
constant value is a write of that value at the entry (``WriteKind.BLOCK``, as a YAML ``env:``
block's entry is): what the run's launch sets. The attribute is matched by name across the
tree; a ``**`` spread's entries are not followed."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from scanner.model import Write, WriteKind
from scanner.reach.modules import Module, Tree
from scanner.source.ast_walk import scoped, walk

_Value = str | int | float | bool


def table_writes(tree: Tree, setters: Sequence[tuple[str, str]]) -> tuple[Write, ...]:
    """The entries of the tables the tree's loops install into the environment; ``setters``:
    each function of the tree that writes a variable its parameter leads to (the scan's
    setters), by qualified name, with its source."""
    installers: dict[str, str] = {}
    for qualname, source in setters:
        for field in _installed_fields(source):
            installers.setdefault(field, qualname)
    if not installers:
        return ()
    found: dict[tuple[str, int, int], Write] = {}
    for rel in sorted(tree.rels()):
        data = tree.data(rel)
        if data is None or not any(f.encode() in data for f in installers):
            continue
        module = tree.module(rel)
        if module is None:
            continue
        for field, key, value, function in _entries(module, frozenset(installers)):
            write = Write(
                name=str(key.value),
                path=rel,
                line=key.lineno,
                column=key.col_offset + 1,
                kind=WriteKind.BLOCK,
                function=function,
                value=str(value),
                via=installers[field],
            )
            found.setdefault((rel, write.line, write.column), write)
    return tuple(found[k] for k in sorted(found))


def _installed_fields(source: str) -> Iterator[str]:
    """The attribute F of each ``for N, V in x.F.items():`` in ``source`` whose body writes
    the variable N: ``os.environ.setdefault(N, ...)``, ``os.environ[N] = ...``,
    ``os.putenv(N, ...)``."""
    try:
        parsed = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for loop in walk(parsed):
        if not isinstance(loop, ast.For):
            continue
        target, items = loop.target, loop.iter
        if (
            isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[0], ast.Name)
            and isinstance(items, ast.Call)
            and not items.args
            and isinstance(items.func, ast.Attribute)
            and items.func.attr == "items"
            and isinstance(items.func.value, ast.Attribute)
            and writes_named(loop, target.elts[0].id)
        ):
            yield items.func.value.attr


def writes_named(loop: ast.For, name: str) -> bool:
    """Whether ``loop``'s body writes the environment under the name ``name``."""
    for node in walk(loop):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (node.func.attr == "putenv" or environ(node.func.value))
            and node.func.attr in ("setdefault", "putenv")
            and node.args
            and _is_name(node.args[0], name)
        ):
            return True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript) and _is_name(t.slice, name) and environ(t.value)
            for t in node.targets
        ):
            return True
    return False


def environ(node: ast.expr) -> bool:
    """``os.environ`` or ``environ``."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or _is_name(node, "environ")


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _entries(
    module: Module, fields: frozenset[str]
) -> Iterator[tuple[str, ast.Constant, _Value, str]]:
    """Each (field, key, value, function) a statement of ``module`` puts into ``x.F``."""
    for node, function in scoped(module.tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                whole = _field(target, fields)
                if whole is not None and isinstance(node.value, ast.Dict):
                    yield from _dict_entries(whole, node.value, function)
                elif isinstance(target, ast.Subscript):
                    one = _field(target.value, fields)
                    key, value = _key(target.slice), _constant(node.value)
                    if one is not None and key is not None and value is not None:
                        yield one, key, value, function
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "update"
            and len(node.value.args) == 1
            and isinstance(node.value.args[0], ast.Dict)
        ):
            updated = _field(node.value.func.value, fields)
            if updated is not None:
                yield from _dict_entries(updated, node.value.args[0], function)


def _field(node: ast.expr, fields: frozenset[str]) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) and node.attr in fields else None


def _dict_entries(
    field: str, table: ast.Dict, function: str
) -> Iterator[tuple[str, ast.Constant, _Value, str]]:
    for key_node, value_node in zip(table.keys, table.values, strict=True):
        key = _key(key_node) if key_node is not None else None  # None: a ``**`` spread
        value = _constant(value_node)
        if key is not None and value is not None:
            yield field, key, value, function


def _key(node: ast.expr) -> ast.Constant | None:
    """``node`` where it is a constant, non-empty string: a variable's name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return node
    return None


def _constant(node: ast.expr) -> _Value | None:
    """A constant string, number or bool (``str()`` of it is what the install writes)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float | bool):
        return node.value
    return None
