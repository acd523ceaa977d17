"""A function looked up in a module's literal table: ``attn_impl_mapping[attn_impl]``.

``attn_impl_mapping = {"eager_attention": eager_attention, "flash_attention":
flash_attention, "flex_attention": flex_attention}`` and ``return attn_impl_mapping[attn_impl]``
(InternLM/xtuner b934f46 xtuner/v1/ops/attn_imp.py:270-274, :296): the function returned is
one of the table's, as the key says; the caller calls it. What the lookup reaches is what
each of them reaches, sometimes (the one that runs is the key's).
"""

from __future__ import annotations

import ast

from scanner.reach.modules import Module

Entry = ast.Name | ast.Attribute  # a function the table holds, by name
MAX_ENTRIES = 16  # a larger table is a registry of many things, not one choice of kernels


class Tables:
    """The module-level literal tables of functions, found once per module and name."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], tuple[Entry, ...]] = {}

    def values(self, module: Module, node: ast.Subscript) -> tuple[Entry, ...]:
        """The functions (names, attributes) of the module's literal dict ``node`` looks
        up; none where it is no such table."""
        table = node.value
        if (
            not isinstance(node.ctx, ast.Load)
            or not isinstance(table, ast.Name)
            or table.id not in module.globals
            or table.id in module.definitions
            or table.id in module.imports
        ):
            return ()
        key = (module.rel, table.id)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = _table(module, table.id)
        return known


def _table(module: Module, name: str) -> tuple[Entry, ...]:
    """The values of the one module-level ``name = {...}`` whose values are all names or
    attributes (two at least, at most ``MAX_ENTRIES``); none otherwise."""
    found: list[ast.Dict] = []
    for statement in module.tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                if not isinstance(statement.value, ast.Dict) or len(targets) != 1:
                    return ()
                found.append(statement.value)
    if len(found) != 1:
        return ()
    values = found[0].values
    if not 2 <= len(values) <= MAX_ENTRIES or None in found[0].keys:
        return ()
    entries = [v for v in values if isinstance(v, ast.Name | ast.Attribute)]
    return tuple(entries) if len(entries) == len(values) else ()
