# fla/modules/l2norm.py:15-35: autotuning runs whatever FLA_CACHE_RESULTS is
import torch
import triton
import triton.language as tl

from fla.utils import autotune_cache_kwargs

NUM_WARPS_AUTOTUNE = [1, 2, 4, 8, 16, 32]


@triton.autotune(
    configs=[triton.Config({}, num_warps=num_warps) for num_warps in NUM_WARPS_AUTOTUNE],
    key=["D"],
    **autotune_cache_kwargs,
)
@triton.jit
def l2norm_fwd_kernel1(x, y, eps, D, BD: tl.constexpr):
    cols = tl.arange(0, BD)
    b_x = tl.load(x + cols, mask=cols < D, other=0.0).to(tl.float32)
    tl.store(y + cols, b_x / tl.sqrt(tl.sum(b_x * b_x) + eps), mask=cols < D)


def l2norm_fwd(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    y = torch.empty_like(x)
    D = x.shape[-1]
    l2norm_fwd_kernel1[(x.shape[0],)](x, y, eps, D, BD=triton.next_power_of_2(D))
    return y
