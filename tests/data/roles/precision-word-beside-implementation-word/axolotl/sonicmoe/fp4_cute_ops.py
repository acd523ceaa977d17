# axolotl@067b021c .../sonicmoe/fp4_cute_ops.py:96, 134-184, 343 and fp4_cute.py:1-26:
# both engines drive quack's CuTe-DSL grouped NVFP4 GEMM (quack.gemm.gemm); the gated one
# also runs the activation in its epilogue.
from quack.gemm import gemm


def gated_nvfp4_forward(x_grouped, weight, cu_seqlens, aux):
    preact = gemm(x_grouped, weight, cu_seqlens_m=cu_seqlens, epilogue_add=aux)
    postact = gemm(x_grouped, weight, cu_seqlens_m=cu_seqlens, epilogue_add=aux, activation="swiglu")
    return postact, preact


def grouped_nvfp4_linear(x_grouped, weight, cu_seqlens):
    return gemm(x_grouped, weight, cu_seqlens_m=cu_seqlens)
