"""A dispatch that returns one implementation of one operation, by the value it is given.

``get_sparse_mla(backend)`` returns ``torch_sparse_mla``, ``tilelang_sparse_mla`` or
``cudnn_dsa_sparse_mla`` as ``backend`` says (InternLM/xtuner b934f46
xtuner/v1/ops/sparse_mla/__init__.py:10-21), each a function of the tree with the same
parameters (``(q, kv, indices, scaling, value_dim)``, pytorch.py:10-16, tilelang.py:15-21,
cudnn_dsa.py:10-16), which the caller calls on the same arguments: the values choose how one
operation is computed, not what (as ``scanner.reach.how`` says of two calls on the same
arguments), whatever the name of the variable says is computed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.reach.modules import Module, Tree
from scanner.reach.sides import Branch

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def dispatched(branch: Branch, tree: Tree) -> str | None:
    """Where the function ``branch``'s test sits in returns, wherever it returns, a function
    of the tree by name (two at least, all with the same parameters), the text that says so;
    None otherwise."""
    module = branch.module
    function = module.function_node_around(branch.test)
    if function is None:
        return None
    returned_names = [r.value for r in _returns(function)]
    if not all(isinstance(n, ast.Name) for n in returned_names):
        return None  # a call, a value: no function handed back (most functions, found fast)
    local = _imported_in(module, function)
    names: list[str] = []
    parameters: set[tuple[str, ...]] = set()
    for returned in returned_names:
        assert isinstance(returned, ast.Name)
        found = _function(module, returned, local, tree)
        if found is None:
            return None
        arguments = found.args
        parameters.add(tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args)))
        names.append(found.name)
    names = list(dict.fromkeys(names))
    if len(names) < 2 or len(parameters) != 1 or not next(iter(parameters)):
        return None
    shown = ", ".join(next(iter(parameters)))
    return (
        f"at {module.rel}:{function.lineno} {function.name} returns one of "
        f"{', '.join(names)}, functions with the same parameters ({shown})"
    )


def _returns(node: ast.AST) -> Iterator[ast.Return]:
    """The returns of a function's own code (not of the functions it defines)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return):
            yield child
        elif not isinstance(child, _SCOPES):
            yield from _returns(child)


def _imported_in(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> dict[str, str]:
    """The names the function's own imports bind, to what they import."""
    found: dict[str, str] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(module.imported_by(node))
    return found


def _function(
    module: Module, name: ast.Name, local: dict[str, str], tree: Tree
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The tree's function ``name`` names there, or None."""
    dotted = local.get(name.id) or module.resolve(name)
    split = tree.split(tree.reexported(dotted)) if dotted is not None else None
    if split is None:
        return None
    found = split[0].definitions.get(split[1])
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None
