# unsloth_zoo 2026.10.9 unsloth_zoo/temporary_patches/moe_routed.py:87-94, 823-830, 1482-1506, 1602-1656
# A *_mode() helper normalises the read to "1" / "0" / "grouped"; its caller tests it.
# "1" (default): the routed Triton kernel; "grouped": a Triton dequant, then torch._grouped_mm;
# "0": None, the caller's usual path.
import os

import torch
import triton
import triton.language as tl


def routed_mode():
    """UNSLOTH_MOE_ROUTED_KERNEL: "1" (default), "0" (off) or "grouped" (selective dequant comparator)."""
    mode = os.environ.get("UNSLOTH_MOE_ROUTED_KERNEL", "1").strip().lower()
    if mode in ("0", "false", "off", "no"):
        return "0"
    if mode == "grouped":
        return "grouped"
    return "1"


@triton.jit
def _routed_gemm_kernel(x, w, out, N: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.arange(0, BLOCK_N)
    tl.store(out + cols, tl.load(x + cols) * tl.load(w + cols), mask=cols < N)


def routed_moe_forward(experts, hidden_states, top_k_index, top_k_weights):
    if torch.is_grad_enabled() or experts.training or not hidden_states.is_cuda:
        return None
    mode = routed_mode()
    if mode == "0" or top_k_index.dim() != 2:
        return None
    if mode == "grouped":
        w = torch.empty_like(experts.gate_up_proj)
        _routed_gemm_kernel[(1,)](experts.gate_up_proj, experts.gate_up_proj, w, N=w.shape[-1], BLOCK_N=128)
        return torch._grouped_mm(hidden_states, w)
    out = torch.empty_like(hidden_states)
    _routed_gemm_kernel[(1,)](hidden_states, experts.gate_up_proj, out, N=out.shape[-1], BLOCK_N=128)
    return out
