"""Objects a branch makes and keeps, where the other side keeps None in their place.

``self.comm = SymmMemCommunicator(...)`` under a test, with ``self.comm = None`` beside
it, makes an object whose methods the rest of the class calls where it is set
(``if self.comm is not None: self.comm.all_reduce(x)``); left unset, the work goes
another way. What the object's methods reach is what the branch that makes it reaches,
on some paths.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from scanner.reach.calls import Found, Reach, Step
from scanner.reach.modules import Module


def kept_objects(
    reach: Reach, module: Module, code: Sequence[ast.stmt], owner: str | None
) -> Found:
    """What the methods of the tree's classes that ``code``'s own statements make and keep
    in a name or an attribute that is None elsewhere reach (on some paths)."""
    found = Found()
    for statement in code:
        if not (
            isinstance(statement, ast.Assign | ast.AnnAssign)
            and isinstance(statement.value, ast.Call)
        ):
            continue
        target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
        if isinstance(statement, ast.Assign) and len(statement.targets) != 1:
            continue
        made = module.resolve(statement.value.func, owner)
        located = reach.class_named(made) if made is not None else None
        if located is None or not _none_elsewhere(module, statement, target):
            continue
        home, local, node = located
        kept = ast.unparse(target)
        for method in node.body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if method.name.startswith("_"):
                continue  # its own helpers, and __init__, which the call itself runs
            reached = reach.function(f"{home.name}.{local}.{method.name}", 0)
            if reached is None or not reached[0].marks:
                continue
            step = Step(
                f"calls {local}, kept in {kept} (None otherwise), and its {method.name}",
                home.rel,
                method.lineno,
            )
            found.merge(reached[0], step, always=False)
    return found


def _none_elsewhere(module: Module, statement: ast.stmt, target: ast.expr) -> bool:
    """Whether ``target`` (a name, or ``self.x``) is set to None elsewhere: in the same
    function for a name, in the class's methods for an attribute."""
    if isinstance(target, ast.Name):
        scope: ast.AST | None = module.function_node_around(statement)
        wanted = target.id
    elif (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        function = module.function_node_around(statement)
        scope = module.parent(function) if function is not None else None
        wanted = target.attr
    else:
        return False
    if scope is None:
        return False
    for node in ast.walk(scope):
        if node is statement or not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        value = node.value
        if not (isinstance(value, ast.Constant) and value.value is None):
            continue
        for other in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Name) and isinstance(other, ast.Name):
                if other.id == wanted:
                    return True
            elif (
                isinstance(other, ast.Attribute)
                and isinstance(other.value, ast.Name)
                and other.value.id == "self"
                and other.attr == wanted
            ):
                return True
    return False
