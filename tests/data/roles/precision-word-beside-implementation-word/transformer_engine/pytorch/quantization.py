# NVIDIA/TransformerEngine@d0067d0d transformer_engine/pytorch/quantization.py:656, 687-712, 1153
# Default "0": one fused CUDA op from the TE extension; "1": the per-tensor PyTorch update.
import os

import torch
import transformer_engine_torch as tex


def _amax_and_scale_update(amax_history, scale, fp8_max, recipe):
    amax = torch.max(amax_history, dim=0).values
    scale.copy_(torch.where(amax > 0.0, (fp8_max / amax) / (2**recipe.margin), scale))
    amax_history.copy_(torch.roll(amax_history, -1, 0))


class FP8GlobalStateManager:
    @classmethod
    def reduce_and_update_fp8_tensors(cls, contiguous_amax, histories, scales, recipe, fp8_max):
        unfused_update = (
            bool(int(os.getenv("NVTE_UNFUSED_FP8_UPDATE", "0")))
            or callable(recipe.amax_compute_algo)
            or callable(recipe.scaling_factor_compute_algo)
        )

        if not unfused_update:
            tex.fused_amax_and_scale_update_after_reduction(
                contiguous_amax, histories, scales, recipe.amax_compute_algo, fp8_max, recipe.margin
            )
        else:
            for amax_history, scale in zip(histories, scales):
                _amax_and_scale_update(amax_history, scale, fp8_max, recipe)
