"""Library entries that quantize weights: code that stores other numbers than it was given.

A call of one of these from the side a value leads to means the value may change the
weights themselves, not only the kernel that multiplies them (``scanner.reach.evidence``).
Each entry with the source that documents it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

QUANTIZERS: Final[Mapping[str, str]] = {
    # bitsandbytes/functional.py: quantize a tensor to 4 bits (NF4/FP4) or 8-bit blockwise
    # (https://github.com/bitsandbytes-foundation/bitsandbytes).
    "bitsandbytes.functional.quantize_4bit": "bitsandbytes",
    "bitsandbytes.functional.quantize_nf4": "bitsandbytes",
    "bitsandbytes.functional.quantize_fp4": "bitsandbytes",
    "bitsandbytes.functional.quantize_blockwise": "bitsandbytes",
    # torchao/quantization/quant_api.py: quantize_(model, config) swaps each Linear's weight
    # for a quantized tensor (https://github.com/pytorch/ao).
    "torchao.quantization.quantize_": "torchao",
    "torchao.quantization.quant_api.quantize_": "torchao",
    # torch/ao/quantization/quantize.py: quantize_dynamic (https://pytorch.org/docs/stable/
    # generated/torch.ao.quantization.quantize_dynamic.html).
    "torch.ao.quantization.quantize_dynamic": "torch.ao",
    "torch.quantization.quantize_dynamic": "torch.ao",
}
