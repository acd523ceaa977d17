"""Code that says a kernel choice's values choose *how* a result is computed, not what.

A name that says what is computed (FP8, INT4, ...) makes a kernel choice a person's
(``scanner.roles``): the other value may compute something else. The code outweighs the
name where it shows either of:

- each value reaches a kernel of its own, and only the side a bitwise run leaves reaches a
  hazard whose result changes from run to run (atomics, a reduction split in parts the run
  picks, autotuning): a choice between kernels, of which a bitwise run cannot take that
  one (where the value leaves the kernels instead, the code in their place may compute
  another thing: another quantization of the weights);
- the two sides of the test compute one operation: each binds the same name to, or
  returns, a call of a function of its own on the same arguments
  (``out = fp8_rowwise_gemv(X, W, W_quant)`` / ``out = fp8_linear(X, W, W_quant)``).
"""

from __future__ import annotations

import ast

from scanner.reach.marks import MarkKind
from scanner.reach.sides import Branch

# Hazards whose result changes from run to run (a compiled or captured path runs the same
# code every run: it is a kernel, not this).
RUN_TO_RUN = frozenset({MarkKind.ATOMIC, MarkKind.SPLIT, MarkKind.AUTOTUNE})


def same_operation(branch: Branch) -> str | None:
    """Where ``branch`` and the other side of its test each bind the same name to (or
    return) a call of a function of their own on the same arguments, the text that says so;
    None otherwise."""
    module = branch.module
    node = module.parent(branch.test)
    if isinstance(node, ast.If) and node.test is branch.test:
        mine, other = (node.body, node.orelse) if branch.holds else (node.orelse, node.body)
        first, second = _one_call(mine), _one_call(other)
    elif isinstance(node, ast.IfExp) and node.test is branch.test:
        mine_expr, other_expr = (
            (node.body, node.orelse) if branch.holds else (node.orelse, node.body)
        )
        first = ("", mine_expr) if isinstance(mine_expr, ast.Call) else None
        second = ("", other_expr) if isinstance(other_expr, ast.Call) else None
    else:
        return None
    if first is None or second is None or first[0] != second[0]:
        return None
    call, instead = first[1], second[1]
    if not (call.args or call.keywords) or ast.dump(call.func) == ast.dump(instead.func):
        return None
    if _operands(call) != _operands(instead):
        return None
    verb = {"": "gives", "return": "returns"}.get(first[0], f"binds {first[0]} to")
    return (
        f"at {module.rel}:{node.lineno} each side {verb} a call on the same arguments "
        f"({_short(call)} / {_short(instead)})"
    )


def _one_call(block: list[ast.stmt]) -> tuple[str, ast.Call] | None:
    """The target and call of a block that is one ``name = f(...)`` or ``return f(...)``."""
    if len(block) != 1:
        return None
    statement = block[0]
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(statement.value, ast.Call)
    ):
        return statement.targets[0].id, statement.value
    if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Call):
        return "return", statement.value
    return None


def _operands(call: ast.Call) -> tuple[list[str], list[str]]:
    return (
        [ast.dump(a) for a in call.args],
        sorted(ast.dump(k) for k in call.keywords),
    )


def _short(call: ast.Call) -> str:
    text = ast.unparse(call)
    return text if len(text) <= 50 else text[:47] + "..."
