# volcengine/verl@b178a3cd verl/utils/kernel/fp8_kernel.py:20-33, 53, 173, 227, 312-341
import os

import torch

_TRITON_AVAILABLE = False
try:
    import triton
    import triton.language as tl

    _TRITON_AVAILABLE = True
except ImportError:
    pass

# Environment variable to control Triton FP8 usage (set to "1" to disable)
_DISABLE_TRITON_FP8 = os.environ.get("VERL_DISABLE_TRITON_FP8", "0").lower() in ("1", "true", "yes")

if _TRITON_AVAILABLE:

    @triton.jit
    def _blockwise_cast_to_fp8_kernel(X, Y, S, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        pid_m = tl.program_id(0)
        tl.store(S + pid_m, tl.max(tl.abs(tl.load(X + tl.arange(0, BLOCK_N)))))


def scaled_fp8_blockwise_triton(data_hp, weight_block_size):
    y = torch.empty_like(data_hp, dtype=torch.float8_e4m3fn)
    s = data_hp.new_empty(data_hp.shape[0] // weight_block_size[0], dtype=torch.float32)
    _blockwise_cast_to_fp8_kernel[(s.numel(),)](data_hp, y, s, *weight_block_size)
    return y, s


def _scaled_fp8_blockwise_pytorch(data_hp, weight_block_size):
    blocks = data_hp.unflatten(0, (-1, weight_block_size[0]))
    scale = blocks.abs().amax(dim=(1, 2)) / torch.finfo(torch.float8_e4m3fn).max
    return (blocks / scale[:, None, None]).to(torch.float8_e4m3fn).flatten(0, 1), scale


def scaled_fp8_blockwise(data_hp, weight_block_size):
    # Use Triton kernel if available and not disabled
    if _TRITON_AVAILABLE and not _DISABLE_TRITON_FP8:
        return scaled_fp8_blockwise_triton(data_hp, weight_block_size)
    # PyTorch fallback implementation (memory-optimized)
    return _scaled_fp8_blockwise_pytorch(data_hp, weight_block_size)
