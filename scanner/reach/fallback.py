"""The side of a kernel choice the code takes on every machine: its fallback.

Where each value of a switch reaches a kernel of its own, the test around the read may
still say which side is the general one. A read joined with a test of the machine
(``_is_cuda and not X``, ``X and not is_hip()``, ``_is_npu or _is_xpu or not X``, or a
flag or predicate that holds only on one machine, ``self.ok and X`` with ``self.ok =
_is_cuda and ...``) gives the test a value that one setting decides alone, whatever the
machine, while unset leaves it to the machine: the side that setting takes is the side
every other machine runs, the code's fallback, and the other side is a specialisation the
code only takes where the machine test holds. A read joined with the code's deterministic
mode off (``X and not deterministic``, a parameter that a ``deterministic=`` keyword hands)
says the same of the deterministic mode: the side that setting takes is the one the mode
takes. A bitwise recipe takes the fallback where it turns the switch's feature off (a
setting that turns a feature on, a library's mode the code only mirrors, is a choice a
person makes). Where the sites disagree (one makes unset the fallback), or no test joins
the read so, the code does not say.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from scanner.model import DecisionKind, Knob, Polarity, Site
from scanner.reach.branches import _read_node
from scanner.reach.calls import is_platform_test
from scanner.reach.modules import Module, Tree
from scanner.reach.sides import Branch
from scanner.reach.truth import truths
from scanner.source.ast_walk import walk

MAX_DEPTH = 3  # flags and predicates followed to the machine test they hold
DETERMINISTIC = "deterministic"  # the keyword scanner.reach.marks reads as a mode


@dataclass(frozen=True, slots=True)
class Fallback:
    """The value that takes the code's fallback, where the test that shows it is, and the
    test of the machine the other side needs."""

    value: str
    where: str
    machine: str
    side: str = "the side the code runs on every machine"


def fallback(knob: Knob, tree: Tree, found: Sequence[Branch]) -> Fallback | None:
    """The knob's value that takes, at every test that joins the read with a test of the
    machine, the side every machine runs, while unset leaves it to the machine; None where
    no such test is found or two tests disagree."""
    values = {v for v in (knob.off_value, knob.on_value) if v is not None}
    shown: dict[str | None, Fallback] = {}
    for site in knob.sites:
        module = tree.module_at(site.path) if site.decisions else None
        if module is not None:
            for value in values:
                _keep(shown, value, _at_site(module, site, value, None))
                _keep(shown, None, _at_site(module, site, None, value))
    for branch in found:
        for value in values:
            _keep(shown, value, _at_test(branch, value, None))
            _keep(shown, None, _at_test(branch, None, value))
    chosen = [v for v in shown if v is not None]
    if None in shown or len(chosen) != 1:
        return None  # unset is some test's fallback, or the tests name two values
    if chosen[0] != _feature_off(knob):
        return None  # the fallback is the switch's feature turned on: a choice a person makes
    return shown[chosen[0]]


def _feature_off(knob: Knob) -> str | None:
    """The value that turns the switch's feature off where unset leaves it on (``0`` of an
    enable switch on by default, ``1`` of a disable switch off by default), or None."""
    enable = knob.polarity is Polarity.ENABLE
    if knob.default_on is not enable:
        return None
    return knob.off_value if enable else knob.on_value


def _keep(shown: dict[str | None, Fallback], key: str | None, found: Fallback | None) -> None:
    if found is not None:
        shown.setdefault(key, found)


def _at_site(module: Module, site: Site, value: str | None, against: str | None) -> Fallback | None:
    """The fallback ``value`` takes, where ``against`` leaves it to the machine, at the
    ``and``/``or`` expressions around the site's read."""
    read = _read_node(module, site)
    outcomes = {v: o for d in site.decisions if d.kind is DecisionKind.READ for v, o in d.outcomes}
    if read is None or value not in outcomes or against not in outcomes:
        return None
    path = _boolean_path(module, read)
    if not path:
        return None
    top = path[-1][0]
    free = truths(top, lambda n: n is read, outcomes[against])
    if free is None or len(set(free)) != 2:
        return None  # the other value does not leave the whole test to the rest
    owner = module.owner_class(read)
    found: Fallback | None = None
    for node, operand in path:
        decided = truths(node, lambda n: n is read, outcomes[value])
        if decided is None or len(set(decided)) != 1:
            return None  # the value leaves this part, and so the whole test, to the rest
        if decided[0] is not isinstance(node.op, ast.Or):
            return None  # the value gives this part the truth the rest could change
        for sibling in node.values if found is None else ():
            side = _needs(module, sibling, owner, node.op) if sibling is not operand else None
            if side is not None:
                where = f"{module.rel}:{top.lineno}"
                found = Fallback(value or "", where, ast.unparse(sibling), side)
                break
    return found


def _boolean_path(module: Module, read: ast.expr) -> list[tuple[ast.BoolOp, ast.expr]]:
    """The ``and``/``or`` expressions around ``read`` within its expression, innermost
    first, each with its operand that holds the read."""
    path: list[tuple[ast.BoolOp, ast.expr]] = []
    node: ast.expr = read
    for outer in module.ancestors(read):
        if isinstance(outer, ast.BoolOp):
            path.append((outer, node))
        elif not _passes(outer, node):
            break
        assert isinstance(outer, ast.expr)
        node = outer
    return path


def _passes(outer: ast.AST, node: ast.expr) -> bool:
    """Whether ``outer`` hands on a value computed from ``node``'s: ``not``, a comparison,
    ``bool()``, ``int()``, ``str()``, or a method of it (``.get()``, ``.lower()``)."""
    if isinstance(outer, ast.UnaryOp | ast.Compare | ast.Attribute):
        return True
    if not isinstance(outer, ast.Call):
        return False
    converts = isinstance(outer.func, ast.Name) and outer.func.id in ("bool", "int", "str")
    return node is outer.func or converts


def _at_test(branch: Branch, value: str | None, against: str | None) -> Fallback | None:
    """The fallback ``value`` takes, where ``against`` leaves it to the machine, at the
    test a branch of the knob sits in."""
    holds = branch.holds
    test: ast.expr | None
    flag = not isinstance(branch.test, ast.BoolOp)
    if flag:
        # a flag that holds the joined test (``if self.use_fused:``, ``self.use_fused =
        # _is_hip and helper(self)``), tested alone or negated: what the branch's values
        # decide is the carried operand, the rest of the flag's test is left to the run
        tested = branch.test
        if isinstance(tested, ast.UnaryOp) and isinstance(tested.op, ast.Not):
            tested, holds = tested.operand, not holds
        test = _flag_test(branch.module, tested, branch.module.owner_class(tested))
    else:
        test = branch.test
    if not isinstance(test, ast.BoolOp):
        return None
    decided, free = branch.runs(value), branch.runs(against)
    if decided is None or free is None or len(set(decided)) != 1:
        return None
    absorbing = isinstance(test.op, ast.Or)
    if flag:
        # the other value must leave the flag's test to its other operands
        if len(set(free)) != 1 or (free[0] if holds else not free[0]) is absorbing:
            return None
    elif len(set(free)) != 2:
        return None
    # the truth the value gives the test: its absorbing one, which the machine cannot change
    truth = decided[0] if holds else not decided[0]
    if truth is not absorbing:
        return None
    owner = branch.module.owner_class(test)
    for operand in test.values:
        side = _needs(branch.module, operand, owner, test.op)
        if side is not None:
            return Fallback(value or "", branch.where, ast.unparse(operand), side)
    return None


def _flag_test(module: Module, node: ast.expr, owner: str | None) -> ast.BoolOp | None:
    """The ``and``/``or`` test a flag holds, where the class or module binds it once, to
    that test (``self.use_fused = _is_hip and use_fused(self)``); None otherwise."""
    if not isinstance(node, ast.Name | ast.Attribute):
        return None
    held = _held(module, node, owner)
    if len(held) != 1 or not isinstance(held[0], ast.BoolOp):
        return None
    return held[0]


def _needs(module: Module, operand: ast.expr, owner: str | None, op: ast.boolop) -> str | None:
    """What the side the value leaves needs of ``operand`` (an operand of an ``op`` test
    beside the read), said as the side the value takes; None where it is neither a test
    of the machine nor the code's deterministic mode off."""
    if _machine(module, operand, owner, op, 0):
        return "the side the code runs on every machine"
    if isinstance(op, ast.And) and _not_deterministic(module, operand):
        return "the side the code runs in its deterministic mode"
    return None


def _not_deterministic(module: Module, node: ast.expr) -> bool:
    """``not deterministic``, of a parameter of the function around it: the flag a call's
    ``deterministic=`` keyword hands (``scanner.reach.marks`` reads that keyword as a
    deterministic mode)."""
    if not (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.Not)
        and isinstance(node.operand, ast.Name)
        and node.operand.id == DETERMINISTIC
    ):
        return False
    function = module.function_node_around(node)
    if function is None:
        return False
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return any(a.arg == DETERMINISTIC for a in every)


def _machine(module: Module, node: ast.expr, owner: str | None, op: ast.boolop, depth: int) -> bool:
    """Whether ``node``, an operand of an ``op`` test, is a test of the machine the other
    side needs: for ``and``, one that holds only on some machines (``_is_cuda``, a flag or
    a predicate that holds only where one does); for ``or``, a test of the machine itself."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _plain(node.operand)
    if _plain(node):
        return True
    if isinstance(node, ast.BoolOp):
        held = [_machine(module, v, owner, node.op, depth) for v in node.values]
        return all(held) if isinstance(node.op, ast.Or) else any(held)
    if not isinstance(op, ast.And) or depth >= MAX_DEPTH:
        return False
    return any(_machine(module, v, owner, ast.And(), depth + 1) for v in _held(module, node, owner))


def _plain(node: ast.expr) -> bool:
    """A test of the machine by its name: ``_is_hip``, ``is_cuda()``, ``p.is_sm120``."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
    if isinstance(node, ast.Attribute):
        return is_platform_test(node.attr)
    return isinstance(node, ast.Name) and is_platform_test(node.id)


def _held(module: Module, node: ast.expr, owner: str | None) -> list[ast.expr]:
    """What a flag or predicate holds: the values a class binds to ``self.flag``, a
    module flag's values, or what a predicate of the module without arguments returns;
    nothing where one of them is not a test."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id != "self" or owner is None:
            return []
        local = owner[len(module.name) + 1 :] if module.name else owner
        return module.attribute_values(local, node.attr)
    if isinstance(node, ast.Name):
        return _module_values(module, node.id)
    if (
        isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and isinstance(node.func, ast.Name)
    ):
        function = module.definitions.get(node.func.id)
        if isinstance(function, ast.FunctionDef) and len(function.body) >= 1:
            last = function.body[-1]
            if isinstance(last, ast.Return) and last.value is not None:
                returns = [n for n in walk(function) if isinstance(n, ast.Return)]
                if len(returns) == 1:
                    return [last.value]
    return []


def _module_values(module: Module, name: str) -> list[ast.expr]:
    """The values module-level statements bind to ``name``."""
    found: list[ast.expr] = []
    for statement in module.tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in statement.targets
        ):
            found.append(statement.value)
    return found
