"""FlyDSL kernels (``@flyc.kernel``, written in FlyDSL's ``fx`` / ``rocdl`` / ``llvm`` calls) are
code the tree shows, like Triton's: a branch inside one runs the same kernel either way, and a
kernel's inline assembly is code the tree does not show.

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the role and evidence are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role
from tests.scanned import role_facts, scanned_knob

NAME = "X_FLY_BPERMUTE"

# AMD-AGI/Primus (pin in benchmarks/recipe_grades.yaml), primus/backends/megatron/core/
# transformer/v4_attention_kernels/_flydsl_v0_deprecated/kernels/v4_sla_fwd_kernel.py:69 (the
# builder), :132 (the read), :229-230 (``@flyc.kernel(known_block_size=...)``), :731-736 (a
# helper nested in the kernel: ``rocdl.ds_bpermute`` on one side, ``shuffle_xor`` on the other).
IN_KERNEL = (
    "import os\n\n"
    "import flydsl.compiler as flyc\n"
    "import flydsl.expr as fx\n"
    "from flydsl.expr import arith, rocdl\n\n\n"
    "def fwd_module(block):\n"
    '    use_bpermute = os.getenv("X_FLY_BPERMUTE", "0") == "1"\n\n'
    "    @flyc.kernel(known_block_size=[block, 1, 1])\n"
    "    def fwd_kernel(X: fx.Pointer, Y: fx.Pointer):\n"
    "        def reduction_peer(v):\n"
    "            if use_bpermute:\n"
    "                return rocdl.ds_bpermute(v, 32)\n"
    "            return arith.ArithValue(v).shuffle_xor(32, 64)\n\n"
    "        fx.store(reduction_peer(fx.load(X)), Y)\n\n"
    "    @flyc.jit\n"
    "    def launch(X: fx.Pointer, Y: fx.Pointer):\n"
    "        fwd_kernel(X, Y).launch(grid=(1, 1, 1))\n\n"
    "    return launch\n"
)
# Both sides are the kernel's own code: the branch is no kernel choice (at main: "each value
# reaches a kernel of its own", each side's FlyDSL call read as a library's).
NOTHING = "nothing in its name, what it feeds or the functions that read it says what it controls"

# ROCm/aiter (pin in benchmarks/recipe_grades.yaml), aiter/ops/flydsl/kernels/
# moe_fused_route_quant_scatter.py:125-131 (``llvm.inline_asm(ty, [...], "v_cvt_... $0, $1",
# "=v,v,v")``: a kernel step written as machine code, whose text is read for nothing). Unset
# adds atomically (``fx.atomic_add``); '1' runs a kernel whose step is inline assembly, so
# nothing says that side has no atomics of its own.
INLINE_ASM = (
    "import os\n\n"
    "import flydsl.compiler as flyc\n"
    "import flydsl.expr as fx\n"
    "from flydsl._mlir.dialects import llvm\n\n\n"
    "@flyc.kernel\n"
    "def add_kernel(X: fx.Pointer, Y: fx.Pointer):\n"
    "    fx.atomic_add(Y, fx.load(X))\n\n\n"
    "@flyc.kernel\n"
    "def asm_kernel(X: fx.Pointer, Y: fx.Pointer):\n"
    "    fx.store(llvm.inline_asm(None, [fx.load(X)], 'v_cvt_pk $0, $1', '=v,v'), Y)\n\n\n"
    "def reduce(X, Y):\n"
    '    if os.getenv("X_FLY_BPERMUTE", "0") == "1":\n'
    "        asm_kernel(X, Y).launch(grid=(1, 1, 1))\n"
    "    else:\n"
    "        add_kernel(X, Y).launch(grid=(1, 1, 1))\n"
)

CASES = [
    (
        "a-branch-inside-a-flydsl-kernel-runs-that-kernel-either-way",
        IN_KERNEL,
        Role.UNKNOWN,
        NOTHING,
    ),
    (
        # read as FlyDSL code, the inline assembly would make '1' the safe side
        "inline-assembly-in-a-flydsl-kernel-is-not-shown-code",
        INLINE_ASM,
        Role.UNKNOWN,
        "each value reaches a kernel of its own: unset, calls add_kernel (pkg/fwd.py:9) -> "
        "@flydsl.compiler.kernel add_kernel at pkg/fwd.py:9; X_FLY_BPERMUTE='1', calls asm_kernel "
        "(pkg/fwd.py:14) -> @flydsl.compiler.kernel asm_kernel at pkg/fwd.py:14",
    ),
]


@pytest.mark.parametrize(
    ("source", "role", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_flydsl_kernel(tmp_path: Path, source: str, role: Role, reason: str) -> None:
    knob = scanned_knob(tmp_path, {"pkg/__init__.py": "", "pkg/fwd.py": source}, NAME)
    facts = role_facts(knob)
    assert (facts[0], facts[3]) == (role, reason)
