"""Reads a call gives nothing back from: the variables a wrapper reads by a name of its own
whose values only reach its locals and the environment it writes.

``def pin(pins): ...; old = os.environ.get("NCCL_NO_CACHE"); os.environ["NCCL_NO_CACHE"]
= ",".join([old, *pins])`` reads NCCL_NO_CACHE by a literal name: that read is a site where
it is, in the wrapper's body. A call of ``pin`` returns nothing, raises nothing and decides
nothing with the value, so the call is no site of NCCL_NO_CACHE. The test is syntactic and
errs toward keeping the call a site: the value may only flow, through operators, literals
and a few builtins that neither raise on a string nor keep it, into local variables and
writes of the environment; any other use (a return, a branch test, a call, an attribute or
a global, a read that raises when unset) keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import libcst as cst

from scanner.interpret.values import V
from scanner.model import ReadKind, WriteKind
from scanner.syntax.events import Event
from scanner.syntax.scopes import param_list
from scanner.syntax.walk import children, nodes

# Reads that give a value whatever the variable holds (a subscript raises when it is unset,
# a typed accessor may raise on a value it cannot convert).
_QUIET_READS = (ReadKind.GET, ReadKind.GETENV, ReadKind.CONTAINS)
# Builtins that take a string and neither raise on it nor keep it.
_PURE_BUILTINS = frozenset({"filter", "list", "tuple", "set", "frozenset", "sorted", "str"})
# Expressions that only combine their parts.
_COMBINING = (
    cst.BinaryOperation,
    cst.BooleanOperation,
    cst.List,
    cst.Tuple,
    cst.Set,
    cst.Element,
    cst.StarredElement,
    cst.FormattedString,
    cst.FormattedStringExpression,
    cst.ConcatenatedString,
    cst.Arg,
)


def quiet_names(
    function: cst.FunctionDef,
    events: Sequence[Event],
    names: Sequence[list[V]],
) -> tuple[str, ...]:
    """The variables ``function`` reads by names of its own (``events`` with their resolved
    ``names``) that no call of it gives back: every read of each is quiet."""
    inside = {id(n) for n in nodes(function)}
    parents = _parents(function)
    writes = {id(e.node) for e in events if e.kind is WriteKind.SET and id(e.node) in inside}
    declared = _declared_outside(function)
    loads = _loads(function)
    defaults = [p.default for p in param_list(function.params) if p.default is not None]
    quiet: dict[str, bool] = {}
    for event, resolved in zip(events, names, strict=True):
        if not event.is_read or id(event.node) not in inside:
            continue
        for name in resolved:
            if not (name.known and isinstance(name.value, str)) or name.params:
                continue
            knob = name.value
            ok = (
                event.unit.scope is function
                and _own_name(knob, defaults)
                and _quiet_read(event, parents, writes, declared, loads)
            )
            quiet[knob] = quiet.get(knob, True) and ok
    return tuple(sorted(k for k, ok in quiet.items() if ok))


def passed_names(values: Iterable[V]) -> frozenset[str]:
    """Every string the call's arguments hold (in containers too): names the wrapper may
    read through its parameters."""
    found: set[str] = set()
    stack: list[object] = [v.value for v in values]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, tuple | list | set | frozenset):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, V):
            stack.append(item.value)
    return frozenset(found)


def _own_name(knob: str, defaults: Sequence[cst.BaseExpression]) -> bool:
    """Whether no parameter default could name ``knob`` (then a call that passes nothing
    would read it through the parameter too)."""
    for default in defaults:
        if isinstance(default, cst.Name) and default.value in ("None", "True", "False"):
            continue
        if isinstance(default, cst.Integer | cst.Float):
            continue
        if isinstance(default, cst.SimpleString) and knob not in default.value:
            continue
        return False
    return True


def _quiet_read(
    event: Event,
    parents: dict[int, cst.CSTNode],
    writes: set[int],
    declared: frozenset[str],
    loads: dict[str, list[cst.CSTNode]],
) -> bool:
    if event.kind not in _QUIET_READS or event.wrapper is not None:
        return False
    if not isinstance(event.node, cst.BaseExpression):
        return False
    tainted: set[str] = set()
    pending: list[cst.CSTNode] = [event.node]
    while pending:
        node = pending.pop()
        bound = _sink(node, parents, writes)
        if bound is None:
            return False
        for name in bound:
            if name in declared:
                return False  # a global or nonlocal: kept beyond the call
            if name not in tainted:
                tainted.add(name)
                pending.extend(loads.get(name, ()))
    return True


def _sink(node: cst.CSTNode, parents: dict[int, cst.CSTNode], writes: set[int]) -> list[str] | None:
    """Where the value of ``node`` ends: the local names it is bound to (none when it
    only reaches an environment write or is dropped), or None when it may reach anything
    else."""
    current = node
    while True:
        parent = parents.get(id(current))
        if parent is None:
            return None
        if isinstance(parent, _COMBINING):
            if isinstance(parent, cst.Arg) and not _pure_call(parents.get(id(parent))):
                return None
            current = parent
            continue
        if isinstance(parent, cst.Call) and current is not parent.func:
            current = parent  # through a pure call's argument (checked at its Arg)
            continue
        if isinstance(parent, cst.Expr):
            return []  # computed and dropped
        if isinstance(parent, cst.Assign) and current is parent.value:
            targets = [t.target for t in parent.targets]
            if all(id(t) in writes for t in targets):
                return []
            if all(isinstance(t, cst.Name) for t in targets):
                return [t.value for t in targets if isinstance(t, cst.Name)]
            return None
        if isinstance(parent, cst.AnnAssign) and current is parent.value:
            target = parent.target
            return [target.value] if isinstance(target, cst.Name) else None
        return None


def _pure_call(call: cst.CSTNode | None) -> bool:
    """``",".join(...)``, ``filter(None, ...)``: builtins and string methods that neither
    raise on a string nor keep it."""
    if not isinstance(call, cst.Call):
        return False
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in _PURE_BUILTINS
    return (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.SimpleString)
        and func.attr.value == "join"
    )


def _loads(function: cst.FunctionDef) -> dict[str, list[cst.CSTNode]]:
    """The uses of each local in ``function``: every Name node spelling it but the targets
    it is bound by, which the walk does not reach as loads."""
    targets: set[int] = set()
    for node in nodes(function):
        if isinstance(node, cst.Assign):
            targets.update(id(t.target) for t in node.targets)
        elif isinstance(node, cst.AnnAssign | cst.AugAssign):
            targets.add(id(node.target))
    found: dict[str, list[cst.CSTNode]] = {}
    for node in nodes(function.body):
        if isinstance(node, cst.Name) and id(node) not in targets:
            found.setdefault(node.value, []).append(node)
    return found


def _declared_outside(function: cst.FunctionDef) -> frozenset[str]:
    found: set[str] = set()
    for node in nodes(function.body):
        if isinstance(node, cst.Global | cst.Nonlocal):
            found.update(item.name.value for item in node.names)
    return frozenset(found)


def _parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    parents: dict[int, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    return parents
