"""A local one side of a switch's test sets to a string, compared into another local that is
handed as a keyword to a kernel builder choosing an atomic reduction by it.

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the role, polarity, off value and evidence are
checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

NAME = "AITER_FLYDSL_FORCE_REDUCE"

# ROCm/aiter (pin in benchmarks/recipe_grades.yaml), aiter/ops/flydsl/: the stage-2 GEMM
# builder kernels/mixed_moe_gemm_2stage_common.py:3439 (accumulate: bool = True), :5210
# (use_buf_atomic = bool(accumulate) and ...), :5334-5373 (where accumulate does not hold
# the kernel stores each slot, else rocdl.raw_ptr_buffer_atomic_fadd or llvm.AtomicRMWOp);
# kernels/mixed_moe_gemm_2stage.py:91-131 (cached, hands accumulate= on).
BUILDER = {
    "pkg/__init__.py": "",
    "pkg/kernels/__init__.py": "",
    # kernels/tensor_shim.py:55-70: the first call compiles and runs the launcher
    "pkg/kernels/shim.py": (
        "import flydsl.compiler as flyc\n\n\n"
        "def _run_compiled(exe, *args):\n"
        "    cf = getattr(exe, '_cf', None)\n"
        "    if cf is not None:\n"
        "        return cf(*args)\n"
        "    exe._cf = flyc.compile(exe, *args)\n"
        "    return None\n"
    ),
    "pkg/kernels/common.py": (
        "import flydsl.compiler as flyc\n"
        "from flydsl._mlir.dialects import llvm\n"
        "from flydsl.expr import const_expr, rocdl\n\n\n"
        "def compile_gemm2_common(*, model_dim, accumulate=True):\n"
        "    use_buf_atomic = bool(accumulate) and model_dim <= 8192\n\n"
        "    @flyc.kernel\n"
        "    def gemm2(out, frag, off):\n"
        "        if const_expr(not bool(accumulate)):\n"
        "            llvm.StoreOp(frag, off)\n"
        "        elif const_expr(use_buf_atomic):\n"
        "            rocdl.raw_ptr_buffer_atomic_fadd(frag, out, off)\n"
        "        else:\n"
        "            llvm.AtomicRMWOp(llvm.AtomicBinOp.fadd, off, frag)\n\n"
        "    @flyc.jit\n"
        "    def launch(out, frag, off):\n"
        "        gemm2(out, frag, off).launch(grid=(1, 1, 1))\n\n"
        "    return launch\n"
    ),
    "pkg/kernels/gemm2.py": (
        "import functools\n\n"
        "from .common import compile_gemm2_common\n\n\n"
        "@functools.cache\n"
        "def compile_gemm2(*, model_dim, accumulate=True):\n"
        "    return compile_gemm2_common(model_dim=model_dim, accumulate=accumulate)\n"
    ),
}

# aiter/ops/flydsl/moe_kernels.py: compile_flydsl_moe_stage2 (:700-779, the builder imported
# in the branch, :748), _flydsl_moe_stage2_impl (:1981, mode: str = "atomic" :1996, the
# builder a parameter's default :2013): "1" sets mode = "reduce" (:2084-2085), an elif sets
# it for outputs over 4 GiB (:2086-2092), accumulate = mode != "reduce" and not
# return_per_slot (:2094), handed to the builder (:2229-2252); where it does not hold the
# slots are summed after the kernel (:2261-2273). That sum is _run_moe_reduction's torch.sum
# where the dtype has no compiled reduction (:1047-1055); its FlyDSL one (:1057-1100,
# kernels/moe_reduce.py:32 @flyc.kernel, :206-240 @flyc.jit) is the next case.
STAGE2 = (
    "import os\n\nimport torch\n\n"
    "from .kernels.shim import _run_compiled\n\n\n"
    "def compile_stage2(model_dim, b_dtype, accumulate: bool = True):\n"
    '    if b_dtype in ("fp4", "fp8"):\n'
    "        from .kernels.gemm2 import compile_gemm2\n\n"
    "        return compile_gemm2(model_dim=model_dim, accumulate=accumulate)\n"
    "    raise ValueError(b_dtype)\n\n\n"
    "{reduction}"
    "def stage2(\n"
    '    x, out, b_dtype, mode="atomic", return_per_slot=False, _compile_kernel=compile_stage2\n'
    "):\n"
    '    if os.environ.get("AITER_FLYDSL_FORCE_REDUCE", "0") == "1":\n'
    '        mode = "reduce"\n'
    '    elif mode != "reduce" and not return_per_slot and x.numel() > 2**31:\n'
    '        mode = "reduce"\n\n'
    '    accumulate = mode != "reduce" and not return_per_slot\n'
    "    target = out if accumulate else torch.empty_like(out)\n"
    "    exe = _compile_kernel(x.shape[1], b_dtype, accumulate=accumulate)\n"
    "    _run_compiled(exe, (target, x))\n"
    "    if not accumulate and not return_per_slot:\n"
    "        {reduce}\n"
    "    return out\n"
)

TORCH_SUM = {
    **BUILDER,
    "pkg/moe.py": STAGE2.format(reduction="", reduce="torch.sum(target, dim=1, out=out)"),
}

FLYDSL_SUM = {
    **BUILDER,
    "pkg/kernels/moe_reduce.py": (
        "import flydsl.compiler as flyc\n"
        "import flydsl.expr as fx\n\n\n"
        "@flyc.kernel\n"
        "def moe_reduction_kernel(X: fx.Pointer, Y: fx.Pointer):\n"
        "    fx.store(fx.load(X), Y)\n\n\n"
        "def compile_moe_reduction(*, topk):\n"
        "    @flyc.jit\n"
        "    def launch(X: fx.Pointer, Y: fx.Pointer):\n"
        "        moe_reduction_kernel(X, Y).launch(grid=(topk, 1, 1))\n\n"
        "    return launch\n"
    ),
    "pkg/moe.py": STAGE2.format(
        reduction=(
            "def _run_moe_reduction(target, out, topk):\n"
            "    from .kernels.moe_reduce import compile_moe_reduction\n\n"
            "    _run_compiled(compile_moe_reduction(topk=topk), (target, out))\n\n\n"
        ),
        reduce="_run_moe_reduction(target, out, 8)",
    ),
}

# The same, with the reduction kernel adding each slot atomically in its turn (FlyDSL's
# fx.atomic_add, vllm's FlyDSL kernels): no side leaves the atomics, a person must say.
FLYDSL_ATOMIC_SUM = {
    **FLYDSL_SUM,
    "pkg/kernels/moe_reduce.py": FLYDSL_SUM["pkg/kernels/moe_reduce.py"].replace(
        "fx.store(fx.load(X), Y)", "fx.atomic_add(Y, fx.load(X))"
    ),
}

# The same with the mode bound once more before the test (``mode = mode.lower()``): what it
# holds where the test fails is not the parameter's default, and nothing is followed.
BOUND_AGAIN = {
    **TORCH_SUM,
    "pkg/moe.py": TORCH_SUM["pkg/moe.py"].replace(
        '    if os.environ.get("AITER', '    mode = mode.lower()\n    if os.environ.get("AITER'
    ),
}

# The builder's test with an atomic on both of its sides tells no side apart.
BOTH_ATOMIC = {
    **TORCH_SUM,
    "pkg/kernels/common.py": BUILDER["pkg/kernels/common.py"].replace(
        "llvm.StoreOp(frag, off)", "llvm.AtomicRMWOp(llvm.AtomicBinOp.xchg, off, frag)"
    ),
}

HANDED = (
    TORCH_SUM["pkg/moe.py"]
    .splitlines()
    .index("    exe = _compile_kernel(x.shape[1], b_dtype, accumulate=accumulate)")
)
ATOMIC = (
    f"unset, it runs `accumulate` at pkg/moe.py:{HANDED + 1}, which reaches "
    f"rocdl.raw_ptr_buffer_atomic_fadd (accumulate= to compile_stage2 at pkg/moe.py:{HANDED + 1}, "
    "where it is true) at pkg/kernels/common.py:14"
)
WORDS = (
    "the name AITER_FLYDSL_FORCE_REDUCE says AITER, a hint of a kernel choice, but no code "
    "it reaches shows one: words alone are not evidence"
)

CASES = [
    (
        "a-string-local-into-a-builder-keyword-that-picks-atomics",
        TORCH_SUM,
        Role.KERNEL,
        Polarity.DISABLE,
        f"{ATOMIC}; {NAME}='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        # FlyDSL kernels are code the tree shows, read like Triton's: the reduction's own
        # kernel has no hazard, so '1' is the side a bitwise run takes
        "the-value-that-leaves-the-atomics-runs-a-flydsl-kernel-of-its-own",
        FLYDSL_SUM,
        Role.KERNEL,
        Polarity.DISABLE,
        "each value reaches a kernel of its own, and only unset reaches atomics: "
        "rocdl.raw_ptr_buffer_atomic_fadd (accumulate= to compile_stage2 at pkg/moe.py:32, "
        f"where it is true) at pkg/kernels/common.py:14; {NAME}='1', calls _run_moe_reduction "
        "(pkg/moe.py:16) -> calls _run_compiled (pkg/kernels/shim.py:4) -> flydsl.compiler.compile "
        "at pkg/kernels/shim.py:8, and all it alone reaches is FlyDSL code with no hazard",
    ),
    (
        "the-value-that-leaves-the-atomics-runs-a-flydsl-kernel-that-adds-atomically",
        FLYDSL_ATOMIC_SUM,
        Role.UNKNOWN,
        Polarity.ENABLE,
        None,
    ),
    ("a-local-bound-again-before-the-test-is-not-followed", BOUND_AGAIN, Role.UNKNOWN, None, WORDS),
    ("atomics-on-both-sides-of-the-builder-test", BOTH_ATOMIC, Role.UNKNOWN, None, WORDS),
]


@pytest.mark.parametrize(
    ("files", "role", "polarity", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_string_flag_into_an_atomic_choice(
    tmp_path: Path,
    files: dict[str, str],
    role: Role,
    polarity: Polarity | None,
    reason: str | None,
) -> None:
    knob = scanned_knob(tmp_path, files, NAME)
    facts = role_facts(knob)
    assert facts[0] is role
    assert facts[2] == "0"
    if polarity is not None:
        assert facts[1] is polarity
    if reason is not None:
        assert facts[3] == reason
    else:  # a kernel of its own on each side: a person must say
        assert facts[3] is not None
        assert facts[3].startswith("each value reaches a kernel of its own: unset, ")
        assert "rocdl.raw_ptr_buffer_atomic_fadd" in facts[3]
        assert f"{NAME}='1', calls _run_moe_reduction" in facts[3]
        assert facts[3].endswith("flydsl.compiler.compile at pkg/kernels/shim.py:8")


# AMD-AGI/Primus (pin in benchmarks/recipe_grades.yaml), primus/backends/megatron/core/
# transformer/v4_attention_kernels/_triton_v1/v4_csa_attention_bwd.py:283-288 (``if
# STORE_DPOOL:`` only adds the pool's gradient with tl.atomic_add) and :1618-1686 (the launch,
# ``STORE_DPOOL=(os.getenv("PRIMUS_V4_CSA_BWD_SKIP_DPOOL", "0") != "1")``): "1" leaves the
# atomic and nothing writes the gradient in its place, so it is no choice of atomics.
SKIPPED = {
    "pkg/__init__.py": "",
    "pkg/bwd.py": (
        "import os\n\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def _pool_bwd_kernel(DQ, DPOOL, ds, STORE_DPOOL: tl.constexpr):\n"
        "    dq = tl.sum(ds, axis=0)\n"
        "    if STORE_DPOOL:\n"
        "        tl.atomic_add(DPOOL, ds, sem='relaxed')\n"
        "    tl.store(DQ, dq)\n\n\n"
        "def pool_bwd(dq, dpool, ds):\n"
        "    _pool_bwd_kernel[(1,)](\n"
        "        dq,\n"
        "        dpool,\n"
        "        ds,\n"
        '        STORE_DPOOL=(os.getenv("PRIMUS_V4_CSA_BWD_SKIP_DPOOL", "0") != "1"),\n'
        "    )\n"
    ),
}


def test_an_atomic_skipped_with_nothing_in_its_place_is_no_choice(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, SKIPPED, "PRIMUS_V4_CSA_BWD_SKIP_DPOOL")
    assert role_facts(knob) == (
        Role.UNKNOWN,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `STORE_DPOOL` at pkg/bwd.py:10, which reaches "
        "triton.language.atomic_add at pkg/bwd.py:11; PRIMUS_V4_CSA_BWD_SKIP_DPOOL='1' skips "
        "that branch and runs nothing in its place, so the work it does may be left undone: "
        "a person must say",
    )
