"""A branch inside a Triton kernel: both of its sides run in that kernel.

unslothai unsloth_zoo 2026.10.9, mxfp4_dequant.py:179-200: ``if BF16_BITS:`` builds the
values from the nibbles' bits, ``else:`` calls ``_e2m1_to_f32``, a ``@triton.jit`` helper
that the kernel inlines. Leaving that call leaves no kernel: what runs instead is the same
kernel's code. Hazards the kernel meets on one side alone (``tl.atomic_add``) still count.
"""

from __future__ import annotations

import ast

from scanner.reach.marks import MarkKind, decorator_marks
from scanner.reach.sides import Branch

# What a side inside a kernel reaches that the kernel is anyway: another kernel's code.
SAME_KERNEL = frozenset({MarkKind.TRITON, MarkKind.TILE, MarkKind.FLYDSL, MarkKind.AUTOTUNE})


def in_kernel(branch: Branch) -> bool:
    """Whether the branch's test sits in a function a Triton (or Gluon, cuTile, FlyDSL) decorator
    makes a kernel."""
    module = branch.module
    node: ast.AST | None = module.function_node_around_line(branch.test.lineno)
    while isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        if any(m.kind in SAME_KERNEL for m in decorator_marks(module, node)):
            return True
        node = module.function_node_around(node)
    return False
