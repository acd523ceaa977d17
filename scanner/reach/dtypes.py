"""A switch whose value picks a torch dtype: a precision choice, whatever kernels it reaches.

``params_dtype=torch.bfloat16 if self.bf16_router_gemm else torch.float32`` (sglang 0.5.23,
srt/models/minimax_m3.py:472-477) decides the router's weights' precision with the same
carried value that sends the router GEMM to a Triton kernel: the value a recipe would write
to leave the kernel also changes what is computed, so the code does not say it is only a
kernel choice. Its sides are ternaries or assignments whose values are torch dtypes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Final

from scanner.reach.sides import Branch

_DTYPES: Final = frozenset(
    {
        "bfloat16",
        "float16",
        "half",
        "float32",
        "float",
        "float64",
        "double",
        "float8_e4m3fn",
        "float8_e4m3fnuz",
        "float8_e5m2",
        "float8_e5m2fnuz",
        "float8_e8m0fnu",
        "float4_e2m1fn_x2",
        "int8",
        "uint8",
    }
)


def dtype_choice(branches: Iterable[Branch]) -> str | None:
    """Where the branches pick two torch dtypes or more (``X if v else Y``, ``dtype = X``
    on one side and ``Y`` on the other): the first such place, as ``path:line``; None when
    they pick at most one."""
    found: dict[str, str] = {}
    for branch in branches:
        for value in _values(branch):
            name = _dtype(value)
            if name is not None:
                found.setdefault(name, f"{branch.module.rel}:{value.lineno}")
    if len(found) < 2:
        return None
    return min(found.values(), key=lambda where: int(where.rsplit(":", 1)[1]))


def _values(branch: Branch) -> Iterable[ast.expr]:
    code = branch.code
    if isinstance(code, ast.expr):
        yield code
        return
    for statement in code:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            yield statement.value


def _dtype(node: ast.expr) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "torch"
        and node.attr in _DTYPES
    ):
        return node.attr
    return None
