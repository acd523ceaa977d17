"""``ast.walk`` and ``ast.iter_child_nodes`` without their generators' overhead.

The scan walks every module the reach reads several times over (its scopes, its bindings,
the names its tests load); the standard library's walk spends more time in its generators
than in the nodes. These give the same nodes in the same order.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

_AST = ast.AST
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
MODULE_SCOPE = "<module>"  # the function a module-level statement sits in, as sites name it


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (itself first), in ``ast.walk``'s order."""
    todo = deque([node])
    pop, push = todo.popleft, todo.append
    while todo:
        current = pop()
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(value, _AST):
                push(value)
        yield current


def children(node: ast.AST) -> list[ast.AST]:
    """The nodes directly under ``node``, in ``ast.iter_child_nodes``'s order."""
    found: list[ast.AST] = []
    push = found.append
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, _AST):
                    push(item)
        elif isinstance(value, _AST):
            push(value)
    return found


def scoped(node: ast.AST, function: str = MODULE_SCOPE) -> Iterator[tuple[ast.AST, str]]:
    """Every node under ``node``, with the dotted name of the definition it sits in
    (``C.m``; ``MODULE_SCOPE`` at module level)."""
    for child in children(node):
        if isinstance(child, _SCOPES):
            inner = child.name if function == MODULE_SCOPE else f"{function}.{child.name}"
            yield from scoped(child, inner)
        else:
            yield child, function
            yield from scoped(child, function)
