# lmdeploy 0.18.0 lmdeploy/pytorch/backends/cuda/static_fp8_modules.py:15-31, 37-86
# On: a torch.compile'd (inductor) quantization; off (default): the plain PyTorch one.
import torch

from lmdeploy.pytorch import envs as _envs
from lmdeploy.pytorch.kernels.cuda.w8a8_triton_kernels import matmul_kernel_static_quant


@torch.compile(backend='inductor', fullgraph=True, dynamic=True, mode='default')
def _per_tensor_quant_fp8_e4m3fn_inductor(x, scale):
    return torch.clamp(x.float() / scale.float(), min=-448.0, max=448.0).to(torch.float8_e4m3fn)


def per_tensor_quant_fp8(x, scale, quant_dtype=torch.float8_e4m3fn):
    return torch.clamp(x.float() / scale.float(), min=-448.0, max=448.0).to(quant_dtype)


class TritonLinearStaticF8Impl:
    def __init__(self, in_features: int, out_features: int):
        self.use_scaled_mm = _envs.static_fp8_use_scaled_mm
        self.use_compiled_quant = (
            _envs.static_fp8_use_compiled_quant
        )

    def forward(self, x, weight, input_scale, weight_scale):
        if self.use_scaled_mm:
            use_compiled_quant = self.use_compiled_quant and weight.dtype == torch.float8_e4m3fn
            if use_compiled_quant:
                input_quant = _per_tensor_quant_fp8_e4m3fn_inductor(x, input_scale)
            else:
                input_quant = per_tensor_quant_fp8(x, input_scale, quant_dtype=weight.dtype)
            return torch._scaled_mm(input_quant, weight.t(), scale_a=input_scale, scale_b=weight_scale)
        return matmul_kernel_static_quant(x, weight, input_scale, weight_scale)
