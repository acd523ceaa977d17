"""Objects a branch makes and keeps, where the other side keeps None in their place.

``self.comm = SymmMemCommunicator(...)`` under a test, with ``self.comm = None`` beside
it, makes an object whose methods the rest of the class calls where it is set
(``if self.comm is not None: self.comm.all_reduce(x)``); left unset, the work goes
another way. What the object's methods reach is what the branch that makes it reaches,
on some paths. So it is for an object a branch makes and returns, where the function
returns None on its other paths (``if not enabled(...): return None`` / ``return
DirectDCPQGatherWorkspace(...)``, vllm 0.33.0 v1/attention/ops/dcp.py:1298-1310): its
callers test what they get (``if direct_workspace is not None:``, dcp.py:1584).
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
        made = _made(module, statement)
        if made is None:
            continue
        call, how = made
        dotted = module.resolve(call.func, owner)
        located = reach.class_named(dotted) if dotted is not None else None
        if located is None:
            continue
        home, local, node = located
        for method in node.body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if method.name.startswith("_"):
                continue  # its own helpers, and __init__, which the call itself runs
            reached = reach.function(f"{home.name}.{local}.{method.name}", 0)
            if reached is None or not reached[0].marks:
                continue
            step = Step(
                f"{how.format(local)} (None otherwise), and its {method.name}",
                home.rel,
                method.lineno,
            )
            found.merge(reached[0], step, always=False)
    return found


def _made(module: Module, statement: ast.stmt) -> tuple[ast.Call, str] | None:
    """The call of a statement that makes an object and keeps it where None is kept
    elsewhere, or returns it where the function returns None elsewhere, with the words
    that say so (``{}``: the class)."""
    if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Call):
        return (statement.value, "returns a new {}") if _none_returned(module, statement) else None
    if not (
        isinstance(statement, ast.Assign | ast.AnnAssign) and isinstance(statement.value, ast.Call)
    ):
        return None
    if isinstance(statement, ast.Assign) and len(statement.targets) != 1:
        return None
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
    if not _none_elsewhere(module, statement, target):
        return None
    return statement.value, f"calls {{}}, kept in {ast.unparse(target)}"


def _none_elsewhere(module: Module, statement: ast.stmt, target: ast.expr) -> bool:
    """Whether ``target`` (a name, or ``self.x``) is set to None elsewhere: in the same
    function for a name (as a name or as ``self.NAME``), in the class's methods for an
    attribute. ``statement`` itself sets it to a call."""
    if isinstance(target, ast.Name):
        scope = module.function_node_around(statement)
        if scope is None:
            return False
        names, attributes = module.set_to_none(scope)
        return target.id in names or target.id in attributes
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        function = module.function_node_around(statement)
        around = module.parent(function) if function is not None else None
        return around is not None and target.attr in module.set_to_none(around)[1]
    return False


def _none_returned(module: Module, statement: ast.Return) -> bool:
    """Whether the function around ``statement`` returns None elsewhere (``return None``,
    or a bare ``return``)."""
    function = module.function_node_around(statement)
    if function is None:
        return False
    for node in module.walked(function):
        if (
            isinstance(node, ast.Return)
            and node is not statement
            and (
                node.value is None
                or (isinstance(node.value, ast.Constant) and node.value.value is None)
            )
            and module.function_node_around(node) is function
        ):
            return True
    return False


def _is_none(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is None
