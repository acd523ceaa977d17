"""The strings a value knob's read is compared with in the function that reads it.

``mode = os.environ.get("X", "1").strip().lower()`` then ``_STATE["enabled"] = ok and mode
not in ("0", "false", "off")`` (unslothai unsloth_zoo temporary_patches/moe_fused_swiglu.py:62-64):
the branches further on test the slot, not the strings, yet "0" is a choice the code names
for the value, so it is weighed as one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.languages import Language
from scanner.model import DecisionKind, Knob
from scanner.reach.modules import Module, Tree
from scanner.reach.sides import string_tuples_around


def site_compared(knob: Knob, tree: Tree) -> set[str]:
    """The strings each Python site's function compares the local its read is bound to
    with (``mode in ("0", "off")``, ``mode == "2"``, ``mode not in _OFF``)."""
    found: set[str] = set()
    for site in knob.sites:
        if site.language is not Language.PYTHON:
            continue
        names = {
            d.name
            for d in site.decisions
            if d.kind is DecisionKind.STORE and d.store == "local" and d.name
        }
        module = tree.module_at(site.path) if names else None
        function = module.function_node_around_line(site.line) if module is not None else None
        if module is None or function is None:
            continue
        for node in module.walked(function):
            if isinstance(node, ast.Compare) and _names(node, names):
                found.update(_strings(module, node))
    return found


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
