# axolotl-ai-cloud/axolotl@067b021c src/axolotl/integrations/kernels/libs/sonicmoe/nvfp4_lora.py:336-342, 544-575
# Default "1": one CuTe-DSL gated-engine call (up-GEMM + activation epilogue);
# "0": the unfused up-GEMM, then a separate activation.
import torch

from .fp4_cute_ops import gated_nvfp4_forward, grouped_nvfp4_linear


def _fused_up_act_enabled() -> bool:
    """``AXOLOTL_SONICMOE_NVFP4_FUSED_UP=0`` is the kill switch back to the unfused path."""
    import os

    return os.environ.get("AXOLOTL_SONICMOE_NVFP4_FUSED_UP", "1") != "0"


def gated_activation(h, act):
    gate, up = h.chunk(2, dim=-1)
    return torch.nn.functional.silu(gate) * up


def moe_lora_forward(x_grouped, w1, cu, lora1, backend: str, act: str):
    if lora1 is not None and backend == "fp4_cute" and act in ("silu", "swiglu") and _fused_up_act_enabled():
        a, _preact = gated_nvfp4_forward(x_grouped, w1, cu, lora1)
    else:
        h = grouped_nvfp4_linear(x_grouped, w1, cu)
        a = gated_activation(h, act)
    return a
