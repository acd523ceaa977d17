"""The function a call of an attribute of the object calls, where its class binds one."""

from __future__ import annotations

import ast

from scanner.reach.modules import Module, Tree


def bound_function(
    module: Module, call: ast.Call, tree: Tree
) -> tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """``self.decode(...)``, where the class's methods bind ``self.decode`` once, to a
    function of the tree or to a wrapper's call of one (``self.decode =
    torch.compiler.disable(decode)``): that function, and its module."""
    func = call.func
    owner = module.owner_class(call)
    if (
        owner is None
        or not isinstance(func, ast.Attribute)
        or not isinstance(func.value, ast.Name)
        or func.value.id != "self"
    ):
        return None
    values = module.attribute_values(owner[len(module.name) + 1 :], func.attr)
    if len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
        value = value.args[0]  # a wrapper's call: the function it wraps
    if not isinstance(value, ast.Name | ast.Attribute):
        return None
    dotted = module.resolve(value, owner)
    split = tree.split(tree.reexported(dotted)) if dotted is not None else None
    if split is None:
        return None
    target, local = split
    definition = target.definitions.get(local)
    if isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
        return target, definition
    return None
