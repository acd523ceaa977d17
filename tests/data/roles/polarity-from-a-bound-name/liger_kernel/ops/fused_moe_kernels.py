# liger-kernel 0.8.5 liger_kernel/ops/fused_moe_kernels.py:16-20, 315-331, 352-357
# Default "1": _AUTOTUNE_DISABLED is False, so every GEMM kernel autotunes over 32 configs
# (do_bench). "0"/"false"/"no": one pinned config, no tuning.
import os

import triton
import triton.language as tl

# LIGER_FUSED_MOE_AUTOTUNE=0 pins each kernel to one config, skipping Triton's
# `do_bench` loop whose per-config working sets can OOM (see issue #1246).
_AUTOTUNE_DISABLED = os.environ.get("LIGER_FUSED_MOE_AUTOTUNE", "1").lower() in ("0", "false", "no")


def _get_gemm_autotune_configs():
    if _AUTOTUNE_DISABLED:
        return [triton.Config({"BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=2)]
    configs = []
    for bn in [64, 128]:
        for bk in [32, 64]:
            for nw in [4, 8]:
                for ns in [2, 3, 4, 5]:
                    configs.append(triton.Config({"BLOCK_N": bn, "BLOCK_K": bk}, num_warps=nw, num_stages=ns))
    return configs


@triton.autotune(
    configs=_get_gemm_autotune_configs(),
    key=["H_dim", "I_dim"],
)
@triton.jit
def _fused_up_proj_swiglu_kernel(x_ptr, w_ptr, out_ptr, H_dim, I_dim, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    cols = tl.arange(0, BLOCK_N)
    tl.store(out_ptr + cols, tl.load(x_ptr + cols) * tl.load(w_ptr + cols))
