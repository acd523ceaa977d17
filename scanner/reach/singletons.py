"""An attribute of the one instance a module keeps, read through the function that gives it.

``_CONFIG: Config | None = None``; ``init_config()`` binds ``_CONFIG = Config(...)``
(``global _CONFIG``), ``get_config()`` returns ``_CONFIG``; ``Config.__init__`` binds
``self.enable_x`` to a carried value, and other modules read ``get_config().enable_x``, or
``config = get_config()`` then ``config.enable_x`` (vllm-ascend ascend_config.py:186-191,
:1297-1344 -> attention/utils.py:521). Each such read holds the value the class bound, where
the class binds the attribute once: the accessor gives no other object.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.reach.carriers import Carriers
from scanner.reach.modules import Module, Tree
from scanner.reach.shapes import own_returns
from scanner.source.ast_walk import walk


def accessed_loads(
    module: Module, owner: str, attr: str, tree: Tree, carriers: Carriers
) -> Iterator[tuple[Module, ast.Attribute]]:
    """The loads of ``attr`` on the instance of class ``owner`` (defined in ``module`` at
    its top level) that a module-level accessor of ``module`` returns, in the modules that
    name the accessor; none where the class binds ``self.attr`` more than once."""
    cls = owner[len(module.name) + 1 :] if module.name else owner
    if "." in cls or not isinstance(module.definitions.get(cls), ast.ClassDef):
        return
    if len(module.attribute_values(cls, attr)) != 1:
        return  # bound again (``self.enable_x = 0`` under a check): not the value alone
    for accessor in _accessors(module, owner):
        carried = module.qualified(accessor)
        for user in _users(module, accessor, tree, carriers):
            for call in user.calls_named(accessor):
                called = user.resolve(call.func, user.owner_class(call))
                if not call.args and called is not None and tree.reexported(called) == carried:
                    yield from _reads(user, call, attr)


def _users(module: Module, accessor: str, tree: Tree, carriers: Carriers) -> list[Module]:
    """The modules that may call ``module``'s ``accessor``: those that import it from
    ``module``, and those that import it from one of these (``from pkg.utils import
    get_config``, where pkg/utils.py imports it from pkg/config.py)."""
    carried = module.qualified(accessor)
    found: dict[str, Module] = {}
    homes = [module]
    for home in homes:
        for rel in carriers.modules_naming(home, accessor):
            user = tree.module(rel)
            if user is None or rel in found:
                continue
            found[rel] = user
            if home is module and user is not module and user.imports.get(accessor) == carried:
                homes.append(user)
    return list(found.values())


def _reads(user: Module, call: ast.Call, attr: str) -> Iterator[tuple[Module, ast.Attribute]]:
    """``accessor().attr``, or ``attr`` of the local the call is bound to (once) in its
    function."""
    outer = user.parent(call)
    if isinstance(outer, ast.Attribute) and outer.value is call:
        if outer.attr == attr and isinstance(outer.ctx, ast.Load):
            yield user, outer
        return
    function = user.function_node_around(call)
    if (
        function is None
        or not isinstance(outer, ast.Assign)
        or len(outer.targets) != 1
        or not isinstance(local := outer.targets[0], ast.Name)
        or len(user.local_bindings(function).get(local.id, ())) != 1
    ):
        return
    for load in user.loads_named(attr):
        if (
            isinstance(load, ast.Attribute)
            and isinstance(load.value, ast.Name)
            and load.value.id == local.id
            and load.lineno > outer.lineno
            and user.function_node_around(load) is function
        ):
            yield user, load


def _accessors(module: Module, owner: str) -> list[str]:
    """The module-level functions of ``module`` whose every return gives a module-level
    name that holds nothing but an instance of ``owner`` (or None)."""
    found = []
    for name, definition in module.definitions.items():
        if "." in name or not isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        returns = own_returns(definition)
        held = {r.value.id for r in returns if isinstance(r.value, ast.Name)}
        if (
            len(held) == 1
            and all(isinstance(r.value, ast.Name) for r in returns)
            and (kept := held.pop()) in module.globals
            and _holds_instance(module, kept, owner)
        ):
            found.append(name)
    return found


def _holds_instance(module: Module, name: str, owner: str) -> bool:
    """Whether every binding of the module-level ``name`` (at the top level, or in a
    function that declares it ``global``) is None or an instance of ``owner``, one at
    least an instance."""
    instances = 0
    value: ast.expr | None
    for node in module.walked(module.tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets, value = [node.target], node.value
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        function = module.function_node_around(node)
        if function is not None and not _declares(function, name):
            continue  # a local of the same name
        if len(targets) != 1 or isinstance(node, ast.AugAssign):
            return False
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            continue
        if not _instance(module, function, value, owner):
            return False
        instances += 1
    return instances > 0


def _declares(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    return any(isinstance(n, ast.Global) and name in n.names for n in walk(function))


def _instance(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
    value: ast.expr,
    owner: str,
) -> bool:
    """Whether ``value`` is ``owner(...)``, or a local of ``function`` bound to nothing
    else."""
    if isinstance(value, ast.Call):
        return module.resolve(value.func) == owner
    if not isinstance(value, ast.Name) or function is None:
        return False
    bound = module.local_bindings(function).get(value.id, ())
    return bool(bound) and all(
        isinstance(b, ast.Call) and module.resolve(b.func) == owner for b in bound
    )
