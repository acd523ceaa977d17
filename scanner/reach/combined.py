"""A carried local combined with others into another local's boolean value.

``fuse_verify = envs.X.get() and is_verify`` then
``do_fused = (unified and (is_decode or fuse_verify)) or other``, and ``if do_fused:``
before the kernel: the local ``fuse_verify`` decides ``do_fused`` where the rest lets it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence


def combined_loads(bindings: Mapping[str, Sequence[ast.expr]], name: str) -> Iterator[ast.Name]:
    """The loads of the local ``name`` in a boolean position of the value another local is
    bound to (``y = a and (name or b)``, ``y = not name``, ``y = bool(name and b)``), from
    ``bindings``, the values each local of a function is assigned."""
    for target, values in bindings.items():
        if target == name:
            continue
        for value in values:
            yield from _boolean_loads(value, name, top=True)


def _boolean_loads(node: ast.expr, name: str, *, top: bool = False) -> Iterator[ast.Name]:
    """The loads of ``name`` that ``node``'s truth is made of, through ``and``, ``or``,
    ``not`` and ``bool()`` (a bare name counts only inside one of those)."""
    if isinstance(node, ast.Name):
        if node.id == name and not top:
            yield node
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _boolean_loads(value, name)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield from _boolean_loads(node.operand, name)
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "bool"
        and len(node.args) == 1
        and not node.keywords
    ):
        yield from _boolean_loads(node.args[0], name)
