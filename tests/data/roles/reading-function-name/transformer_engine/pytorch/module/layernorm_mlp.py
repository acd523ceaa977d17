# NVIDIA/TransformerEngine@d0067d0d transformer_engine/pytorch/module/layernorm_mlp.py:1997-1999, 2157, 2411, 627-640
# Read in __init__ (nothing in the name says kernel): "1" (default) runs the torch.compile'd
# bias+GeLU; "0" adds the bias and runs the plain activation.
import os

import torch

from ..jit import bias_gelu_fused_


class LayerNormMLP(torch.nn.Module):
    def __init__(self, hidden_size: int, ffn_hidden_size: int, activation: str = "gelu") -> None:
        super().__init__()
        self.activation = activation
        self.bias_gelu_nvfusion = (
            bool(int(os.getenv("NVTE_BIAS_GELU_NVFUSION", "1"))) and self.activation == "gelu"
        )
        self.fc1 = torch.nn.Linear(hidden_size, ffn_hidden_size, bias=False)
        self.fc1_bias = torch.nn.Parameter(torch.zeros(ffn_hidden_size))

    def forward(self, inp: torch.Tensor) -> torch.Tensor:
        fc1_out_without_bias = self.fc1(inp)
        if self.bias_gelu_nvfusion:
            act_out = bias_gelu_fused_(fc1_out_without_bias, self.fc1_bias)
        else:
            act_out = torch.nn.functional.gelu(fc1_out_without_bias + self.fc1_bias, approximate="tanh")
        return act_out
