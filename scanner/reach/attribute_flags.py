"""Flags one side of a gate stores on an object, and the tests that read them there.

``if envs.X: self.use_fused = True`` in ``__init__``, tested in ``forward``; or a helper
that returns early on the knob and otherwise marks the module it is handed
(``mlp._enable_fusion = True``), whose own class declares the flag
(``self._enable_fusion = False``) and tests it (``if self._enable_fusion: ...``).
A ``threading.Event`` the class binds to an attribute is such a flag too: ``.set()`` on one
side of the gate, ``.is_set()`` where it is tested, also through another object that holds
the instance (``self.session._stop.is_set()``) where one class of the tree alone binds an
Event to that name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import Final

from scanner.reach.carriers import Carriers
from scanner.reach.modules import Module, Tree

# A flag stored on another object is searched for in the classes that declare it; a name
# more classes declare than this is too common to say which object was meant.
MAX_DECLARING: Final = 3


def attributes_set(body: Sequence[ast.stmt]) -> dict[tuple[str, str], bool]:
    """The attributes a block's own statements set to True or False, by the object's name
    (``self``, or a local or parameter) and the attribute's."""
    found: dict[tuple[str, str], bool] = {}
    for statement in body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Attribute)
            and isinstance(target.value, ast.Name)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, bool)
        ):
            found[(target.value.id, target.attr)] = statement.value.value
    return found


def flag_loads(
    module: Module,
    statement: ast.stmt,
    holder: str,
    attr: str,
    tree: Tree,
    carriers: Carriers,
) -> Iterator[tuple[Module, ast.Attribute]]:
    """The loads of the flag ``holder.attr`` that ``statement`` (in ``module``) sets: for
    ``self``, the loads of ``self.attr`` in the class's other methods and after the
    statement in its own; for another object, the loads of ``self.attr`` in the classes of
    the tree that declare the flag themselves (``self.attr = False``)."""
    if holder == "self":
        owner = module.owner_class(statement)
        function = module.function_node_around(statement)
        if owner is None:
            return
        end = statement.end_lineno or statement.lineno
        for load in module.attribute_loads(attr):
            if module.owner_class(load) == owner and (
                module.function_node_around(load) is not function or load.lineno > end
            ):
                yield module, load
        return
    declaring: list[tuple[Module, str]] = []
    for rel in carriers.modules_naming(None, attr):
        other = tree.module(rel)
        if other is None:
            continue
        for owner in other.flag_classes(attr):
            declaring.append((other, owner))
    if len(declaring) > MAX_DECLARING:
        return
    for other, owner in declaring:
        for load in other.attribute_loads(attr):
            if other.owner_class(load) == owner:
                yield other, load


def events_set(module: Module, body: Sequence[ast.stmt]) -> dict[str, bool]:
    """The Events of ``self`` a block's own statements set (``self._stop.set()``: True) or
    clear (False), by attribute, where the class around binds that attribute to a
    ``threading.Event()``."""
    found: dict[str, bool] = {}
    for statement in body:
        if not (
            isinstance(statement, ast.Expr)
            and isinstance(call := statement.value, ast.Call)
            and not call.args
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in _EVENT_SETTERS
            and isinstance(held := call.func.value, ast.Attribute)
            and isinstance(held.value, ast.Name)
            and held.value.id == "self"
        ):
            continue
        owner = module.owner_class(statement)
        if owner is not None and owner in module.event_classes(held.attr):
            found[held.attr] = _EVENT_SETTERS[call.func.attr]
    return found


_EVENT_SETTERS: Final = {"set": True, "clear": False}


def event_tests(
    module: Module,
    statement: ast.stmt,
    attr: str,
    tree: Tree,
    carriers: Carriers,
) -> Iterator[tuple[Module, ast.Call]]:
    """The ``.is_set()`` calls on the Event ``self.attr`` that ``statement`` sets or clears:
    in its class (other methods, or after it in its own), and on ``x.attr`` anywhere in the
    tree (``self.session._stop``) where no other class binds an Event to ``attr``."""
    owner = module.owner_class(statement)
    function = module.function_node_around(statement)
    end = statement.end_lineno or statement.lineno
    for load in module.attribute_loads(attr):
        if module.owner_class(load) == owner and (
            module.function_node_around(load) is not function or load.lineno > end
        ):
            test = _is_set(module, load)
            if test is not None:
                yield module, test
    users = [m for rel in carriers.modules_naming(None, attr) if (m := tree.module(rel))]
    if sum(len(m.event_classes(attr)) for m in users) != 1:
        return
    for user in users:
        for named in user.loads_named(attr):
            if isinstance(named, ast.Attribute) and not (
                isinstance(named.value, ast.Name) and named.value.id in ("self", "cls")
            ):
                test = _is_set(user, named)
                if test is not None:
                    yield user, test


def _is_set(module: Module, load: ast.Attribute) -> ast.Call | None:
    """The call ``load.is_set()``, where ``load`` is the object it is called on."""
    method = module.parent(load)
    call = module.parent(method) if method is not None else None
    if (
        isinstance(method, ast.Attribute)
        and method.attr == "is_set"
        and isinstance(call, ast.Call)
        and call.func is method
        and not call.args
    ):
        return call
    return None
