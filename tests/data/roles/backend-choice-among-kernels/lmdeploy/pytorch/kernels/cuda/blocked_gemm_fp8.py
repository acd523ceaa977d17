# lmdeploy 0.18.0 lmdeploy/pytorch/kernels/cuda/blocked_gemm_fp8.py:331-343, 425, 521-533
# and blocked_fp8_gemm_gluon.py:99-100 (@gluon.jit)
import triton
import triton.language as tl
from triton.experimental import gluon


@triton.autotune(configs=[triton.Config({'BLOCK_M': 64, 'BLOCK_N': 128}, num_warps=4)], key=['N', 'K'])
@triton.jit
def _gemm_fp8_kernel(A, B, C, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.store(C + tl.arange(0, BLOCK_N), tl.load(A + tl.arange(0, BLOCK_N)))


@gluon.jit
def _fp8_gemm_nt_single_partition_kernel(A, B, C):
    pass


def blocked_gemm_fp8(A, A_scale, B, B_scale, out_dtype):
    C = A.new_empty(A.shape[0], B.shape[1], dtype=out_dtype)
    _gemm_fp8_kernel[(1,)](A, B, C, B.shape[1], A.shape[1])
    return C


def gluon_fp8_gemm_nt(A, A_scale, B, B_scale):
    C = A.new_empty(A.shape[0], B.shape[0])
    _fp8_gemm_nt_single_partition_kernel[(1,)](A, B, C)
    return C


def deep_gemm_fp8(A, A_scale, B, B_scale, out_dtype):
    import deep_gemm

    C = A.new_empty(A.shape[0], B.shape[0], dtype=out_dtype)
    deep_gemm.fp8_gemm_nt((A, A_scale), (B, B_scale), C, None)
    return C
