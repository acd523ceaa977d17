"""Constants an object is made with that decide the tests its methods make of them.

``self.scale_mask_softmax = FusedScaleMaskSoftmax(mask_type, mask_func, backend=backend)``
with ``backend = "paddle"`` bound just before (ROCm/TransformerEngine ac80527
transformer_engine/paddle/layer/attention.py:546-549): ``__init__`` keeps the parameter as
``self.backend`` (paddle/layer/softmax.py:140-152), and ``forward`` runs the fused kernels under
``if self.backend == "transformer_engine":`` (:169-178). The class binds ``self.backend`` to
nothing but the parameter and ``"paddle"`` (:173), so that object never takes the fused side:
the walk of the construction follows only the side its tests take.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from scanner.model import Outcome
from scanner.reach.modules import Module
from scanner.source.ast_walk import walk

# By attribute of ``self``: every value the object may hold there.
Fixed = Mapping[str, frozenset[Outcome]]
_CONSTANT = (str, bool, int, float)


def fixed_attributes(
    module: Module, call: ast.Call, owner: Module, cls: ast.ClassDef, local: str
) -> dict[str, frozenset[Outcome]]:
    """The attributes of ``self`` the object ``call`` (in ``module``) makes of the class
    ``cls`` (``local`` in ``owner``) holds only constants in: a constant handed to a parameter
    that ``__init__`` keeps as is, where the class binds that attribute to nothing but
    constants otherwise and no code of ``owner`` or ``module`` binds it on another object."""
    init = next(
        (s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None or any(isinstance(a, ast.Starred) for a in call.args):
        return {}
    parameters = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
    handed = {parameters[at]: value for at, value in enumerate(call.args) if at < len(parameters)}
    handed.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    fixed: dict[str, frozenset[Outcome]] = {}
    for statement in init.body:
        kept = _kept(statement)
        if kept is None or kept[1] not in handed or _rebinds(init, kept[1]):
            continue
        attr, parameter, stored = kept
        value = _constant_at(module, handed[parameter], call)
        others = [v for v in owner.attribute_values(local, attr) if v is not stored]
        if (
            value is not None
            and all(_literal(v) is not None for v in others)
            and not _bound_elsewhere(owner, attr)
            and not _bound_elsewhere(module, attr)
        ):
            fixed[attr] = frozenset({value, *(_literal(v) for v in others)})
    return fixed


def decided(test: ast.expr, fixed: Fixed) -> bool | None:
    """Whether ``test`` holds, where the attributes of ``self`` it compares with constants
    decide it whatever else it asks; None where they do not."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        held = decided(test.operand, fixed)
        return None if held is None else not held
    if isinstance(test, ast.BoolOp):
        parts = [decided(v, fixed) for v in test.values]
        stop = isinstance(test.op, ast.Or)  # the value that decides the whole
        if stop in parts:
            return stop
        return None if None in parts else not stop
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if isinstance(op, ast.Eq | ast.NotEq) and _self_attribute(right) is not None:
        left, right = right, left
    attr = _self_attribute(left)
    values = fixed.get(attr) if attr is not None else None
    if values is None:
        return None
    if isinstance(op, ast.Eq | ast.NotEq):
        other = _literal(right)
        if other is None:
            return None
        answers = {value == other for value in values}
    elif isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.Tuple | ast.List | ast.Set):
        members = [_literal(e) for e in right.elts]
        if None in members:
            return None
        answers = {value in members for value in values}
    else:
        return None
    if len(answers) != 1:
        return None
    answer = answers.pop()
    return not answer if isinstance(op, ast.NotEq | ast.NotIn) else answer


def _kept(statement: ast.stmt) -> tuple[str, str, ast.Name] | None:
    """``self.attr = parameter``, as (attr, parameter, the value's node)."""
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.value, ast.Name)
        and (attr := _self_attribute(statement.targets[0])) is not None
    ):
        return attr, statement.value.id, statement.value
    return None


def _self_attribute(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None


def _rebinds(function: ast.FunctionDef, name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        for n in walk(function)
    )


def _bound_elsewhere(module: Module, attr: str) -> bool:
    """Whether ``module`` binds ``attr`` on an object other than ``self`` (``layer.attr =``)."""
    return any(
        isinstance(n, ast.Attribute)
        and n.attr == attr
        and not isinstance(n.ctx, ast.Load)
        and _self_attribute(n) is None
        for n in module.walked(module.tree)
    )


def _literal(node: ast.expr) -> Outcome:
    if isinstance(node, ast.Constant) and isinstance(node.value, _CONSTANT):
        return node.value
    return None


def _constant_at(module: Module, node: ast.expr, call: ast.Call) -> Outcome:
    """The constant ``node`` (an argument of ``call``) is: a literal, or a local the statements
    before the call's in its block bind last to a literal (``backend = "paddle"``)."""
    if not isinstance(node, ast.Name):
        return _literal(node)
    statement: ast.AST | None = call
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = module.parent(statement)
    outer = module.parent(statement) if statement is not None else None
    block = next(
        (
            b
            for field in ("body", "orelse", "finalbody")
            if isinstance(b := getattr(outer, field, None), list) and statement in b
        ),
        None,
    )
    if block is None:
        return None
    for before in reversed(block[: block.index(statement)]):
        binds = [
            n
            for n in walk(before)
            if isinstance(n, ast.Name) and n.id == node.id and not isinstance(n.ctx, ast.Load)
        ]
        if not binds:
            continue
        if isinstance(before, ast.Assign) and before.targets == [binds[0]]:
            return _literal(before.value)
        return None
    return None
