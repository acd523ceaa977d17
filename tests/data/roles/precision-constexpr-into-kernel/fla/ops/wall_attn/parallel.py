# fla-org/flash-linear-attention@bc3b101d fla/ops/wall_attn/parallel.py:26-30, 449-492, 563-590, 880-906
# Both values run the same autotuned Triton kernel; the value is a tl.constexpr choosing
# bf16 or fp32 tensor-core operands inside it.
import os

import torch
import triton
import triton.language as tl

_DEBUG_ASSERTS = os.environ.get("WALL_ATTN_DEBUG", "0") == "1"

# Set WALL_ATTN_DKV_DIAG_BF16=0 to force fp32 tensor cores in the diagonal loop
# of parallel_wall_attn_bwd_kernel_dkv (precision over speed).
_DKV_DIAG_BF16 = os.environ.get("WALL_ATTN_DKV_DIAG_BF16", "1") == "1"


@triton.autotune(configs=[triton.Config({'BT': bt}, num_warps=4) for bt in (64, 128)], key=['K', 'V'])
@triton.jit
def parallel_wall_attn_bwd_kernel_dkv(q, k, dk, K: tl.constexpr, V: tl.constexpr, BT: tl.constexpr,
                                      DIAG_BF16: tl.constexpr):
    b_q = tl.load(q + tl.arange(0, BT))
    b_k = tl.load(k + tl.arange(0, BT))
    if DIAG_BF16:
        # Fast path: bf16 tensor cores, fp32 accumulation.
        b_k_til = (b_k.to(tl.float32) * 2.0).to(b_k.dtype)
    else:
        # Precise path: fp32 tensor cores.
        b_k_til = b_k.to(tl.float32) * 2.0
    tl.store(dk + tl.arange(0, BT), tl.sum(b_k_til * b_q))


def parallel_wall_attn_bwd(q, k):
    dk = torch.empty_like(k)
    parallel_wall_attn_bwd_kernel_dkv[(1,)](q=q, k=k, dk=dk, K=k.shape[-1], V=k.shape[-1],
                                             DIAG_BF16=_DKV_DIAG_BF16)
    if _DEBUG_ASSERTS:
        assert torch.isfinite(dk).all()
    return dk
