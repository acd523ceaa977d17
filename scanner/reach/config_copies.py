"""A config key the config object copies into another of its keys.

``if self.use_unified_backend is not None: selector = str(self.use_unified_backend); ...;
self.attn_backend = selector`` in a config class's ``__post_init__``: the value the launcher
gives the first key is what the code that reads the second key (``getattr(config,
"attn_backend", "eager")``) tests. The copy is one the same object makes in one method, from
its own key, through a local at most, computed from the key and literals alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from scanner.model import Outcome
from scanner.reach.modules import Module
from scanner.reach.truth import value_of
from scanner.source.ast_walk import walk


def copied_keys(
    module: Module,
    read: ast.expr,
    key: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> Iterator[tuple[str, list[tuple[str | None, Outcome]]]]:
    """The other keys of the same object that a read of ``self.key`` is copied into, each
    with what it holds under every outcome of ``key``; nothing where the value with the
    variable unset is not known."""
    if not (
        isinstance(read, ast.Attribute)
        and isinstance(read.value, ast.Name)
        and read.value.id == "self"
    ):
        return
    function = module.function_node_around(read)
    statement = _statement(module, read)
    if function is None or statement is None or len(statement.targets) != 1:
        return
    computed = _values(statement.value, read, outcomes)
    if computed is None:
        return
    target = statement.targets[0]
    stores: list[ast.expr] = []
    if isinstance(target, ast.Attribute):
        stores = [target]
    elif isinstance(target, ast.Name):
        stores = [
            node.targets[0]
            for node in walk(function)
            if isinstance(node, ast.Assign)
            and node.lineno > statement.lineno
            and len(node.targets) == 1
            and isinstance(node.value, ast.Name)
            and node.value.id == target.id
        ]
    for store in stores:
        if _on_self(store) and isinstance(store, ast.Attribute) and store.attr != key:
            yield store.attr, computed


def _statement(module: Module, read: ast.expr) -> ast.Assign | None:
    """The assignment whose value holds ``read`` (inside expressions only)."""
    for outer in module.ancestors(read):
        if isinstance(outer, ast.Assign):
            return outer
        if not isinstance(outer, ast.expr):
            return None
    return None


def _values(
    value: ast.expr, read: ast.expr, outcomes: Sequence[tuple[str | None, Outcome]]
) -> list[tuple[str | None, Outcome]] | None:
    """What ``value`` holds under each outcome of ``read``; values it raises on are left
    out; None when the value with the variable unset is not known."""
    found: list[tuple[str | None, Outcome]] = []
    for name, outcome in outcomes:
        known, result = value_of(value, lambda node: node is read, outcome)
        if known and isinstance(result, str | bool | int | float | type(None)):
            found.append((name, result))
        elif name is None:
            return None
    return found


def _on_self(target: ast.expr) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    )
