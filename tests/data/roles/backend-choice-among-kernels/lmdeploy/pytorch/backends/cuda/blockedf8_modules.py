# lmdeploy 0.18.0 lmdeploy/pytorch/backends/cuda/blockedf8_modules.py:10-11, 78-193, 232-270
# Every choice reaches a kernel: a Triton GEMM, a Gluon GEMM, DeepGEMM. None is plain PyTorch.
from lmdeploy.pytorch.envs import blocked_fp8_gemm_backend
from lmdeploy.pytorch.kernels.cuda.blocked_gemm_fp8 import blocked_gemm_fp8, deep_gemm_fp8, gluon_fp8_gemm_nt


class TritonLinearBlockedF8Impl:
    def forward(self, x, weight, scale):
        return blocked_gemm_fp8(x, scale, weight.t(), scale.t(), out_dtype=x.dtype)


class GluonLinearBlockedF8Impl:
    def forward(self, x, weight, scale):
        return gluon_fp8_gemm_nt(x, scale, weight, scale)


class DeepGemmLinearBlockedF8Impl:
    def forward(self, x, weight, scale):
        return deep_gemm_fp8(x, scale, weight, scale, out_dtype=x.dtype)


def _build_linear_blocked_f8(has_deep_gemm: bool, has_gluon: bool):
    provider = blocked_fp8_gemm_backend

    if provider == 'auto':
        if has_deep_gemm:
            impl_cls = DeepGemmLinearBlockedF8Impl
        elif has_gluon:
            impl_cls = GluonLinearBlockedF8Impl
        else:
            impl_cls = TritonLinearBlockedF8Impl
    elif provider == 'deepgemm':
        impl_cls = DeepGemmLinearBlockedF8Impl
    elif provider == 'gluon':
        impl_cls = GluonLinearBlockedF8Impl
    else:
        impl_cls = TritonLinearBlockedF8Impl
    return impl_cls()
