# fla/ops/gated_delta_rule/chunk.py:395: the undecorated default is FLA's own autotuned Triton path
import triton
import triton.language as tl

from fla.ops.backends import dispatch


@triton.autotune(configs=[triton.Config({"BV": bv}, num_warps=4) for bv in (32, 64)], key=["K", "V"])
@triton.jit
def chunk_gated_delta_rule_fwd_kernel_h(k, v, h, K: tl.constexpr, V: tl.constexpr, BV: tl.constexpr):
    tl.store(h + tl.arange(0, BV), tl.load(v + tl.arange(0, BV)))


@dispatch('gated_delta_rule')
def chunk_gated_delta_rule(q, k, v, g, beta, **kwargs):
    h = v.new_empty(v.shape)
    chunk_gated_delta_rule_fwd_kernel_h[(1,)](k, v, h, K=k.shape[-1], V=v.shape[-1])
    return h
