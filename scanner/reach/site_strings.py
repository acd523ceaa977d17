"""The strings a value knob's read is compared with where it is read.

``mode = os.environ.get("X", "1").strip().lower()`` then ``_STATE["enabled"] = ok and mode
not in ("0", "false", "off")`` (unslothai unsloth_zoo temporary_patches/moe_fused_swiglu.py:62-64):
the branches further on test the slot, not the strings, yet "0" is a choice the code names
for the value, so it is weighed as one. So are the keys of a literal table a module-level
read is looked up in, and the strings module-level statements compare it with.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.languages import Language
from scanner.model import DecisionKind, Knob
from scanner.reach.modules import Module, Tree
from scanner.reach.sides import string_tuples_around
from scanner.source.ast_walk import walk


def site_compared(knob: Knob, tree: Tree) -> set[str]:
    """The strings each Python site's function compares the local its read is bound to
    with (``mode in ("0", "off")``, ``mode == "2"``, ``mode not in _OFF``)."""
    found: set[str] = set()
    for site in knob.sites:
        if site.language is not Language.PYTHON:
            continue
        stores = {
            d.name: d.store
            for d in site.decisions
            if d.kind is DecisionKind.STORE and d.store in ("local", "global") and d.name
        }
        module = tree.module_at(site.path) if stores else None
        if module is None:
            continue
        function = module.function_node_around_line(site.line)
        names = {n for n, store in stores.items() if store == "local"}
        if function is not None and names:
            for node in module.walked(function):
                if isinstance(node, ast.Compare) and _names(node, names):
                    found.update(_strings(module, node))
        held = {n for n, store in stores.items() if store == "global"}
        if function is None and held:
            for statement in module.tree.body:
                found.update(_table_keys(statement, held))
                found.update(_compared_at_module_level(module, statement, held))
    return found


def _table_keys(statement: ast.stmt, names: set[str]) -> Iterator[str]:
    """The string keys of a module-level literal table a stored name is looked up in
    (``_MIN_K = {"1": 3, "0": 1 << 30}.get(_X, 8)``, unslothai unsloth_zoo
    temporary_patches/moe_utils.py:2447): the values the code tells apart."""
    if not isinstance(statement, ast.Assign | ast.AnnAssign):
        return
    for node in walk(statement):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Dict)
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in names
        ):
            for key in node.func.value.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    yield key.value


def _compared_at_module_level(
    module: Module, statement: ast.stmt, names: set[str]
) -> Iterator[str]:
    """The strings a module-level statement compares a stored name with (``_KILLED = _ENV in
    ("0", "off")``, ``_FORCED = _ENV in ("1", "on")``, unslothai unsloth_zoo
    temporary_patches/moe_routing_triton.py:43-45): each names a choice of the value."""
    if not isinstance(statement, ast.Assign | ast.AnnAssign):
        return
    for node in walk(statement):
        if isinstance(node, ast.Compare) and _names(node, names):
            yield from _strings(module, node)


def _names(node: ast.Compare, names: set[str]) -> bool:
    return any(isinstance(p, ast.Name) and p.id in names for p in (node.left, *node.comparators))


def _strings(module: Module, node: ast.Compare) -> Iterator[str]:
    tuples = string_tuples_around(module, node)
    for part in (node.left, *node.comparators):
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            yield part.value
        elif isinstance(part, ast.Tuple | ast.List | ast.Set):
            yield from (
                e.value
                for e in part.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
        elif isinstance(part, ast.Name):
            yield from tuples.get(part.id, ())
