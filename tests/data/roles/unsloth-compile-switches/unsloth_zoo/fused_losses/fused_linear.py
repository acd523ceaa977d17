# unsloth_zoo 2026.10.9 unsloth_zoo/fused_losses/fused_linear.py:38-41, 265-320, 2358
import torch
import triton
import triton.language as tl


@triton.jit
def _logprobs_kernel(h, w, t, out, V: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    tl.store(out + cols, tl.load(h + cols) * tl.load(w + cols))


def fused_linear_logprobs(hidden, weight, targets, **kwargs):
    out = torch.empty_like(targets, dtype=torch.float32)
    _logprobs_kernel[(1,)](hidden, weight, targets, out, V=weight.shape[0], BLOCK=128)
    return out
