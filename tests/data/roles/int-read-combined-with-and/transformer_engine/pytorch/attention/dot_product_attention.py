# NVIDIA/TransformerEngine@d0067d0d .../dot_product_attention/dot_product_attention.py:2116-2124, 2174-2349
import torch
import transformer_engine_torch as tex
from flash_attn import flash_attn_func

from . import utils as dpa_utils


class DotProductAttention(torch.nn.Module):
    def forward(self, q, k, v, attention_params=None):
        (
            use_flash_attention,
            use_fused_attention,
            use_unfused_attention,
        ) = dpa_utils.get_attention_backend(attention_params)
        if use_flash_attention:
            return flash_attn_func(q, k, v, causal=True)
        if use_fused_attention:
            return tex.fused_attn_fwd(q, k, v)
        if use_unfused_attention:
            scores = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
            return scores @ v
        raise ValueError("No dot product attention backend is available for the provided inputs.")
