"""The optimizer: AdamW, fused into one multi-tensor step unless ``TOY_FUSED_ADAMW=0``."""

from __future__ import annotations

import os
from collections.abc import Iterable

import torch


def make_optimizer(params: Iterable[torch.nn.Parameter], lr: float) -> torch.optim.Optimizer:
    """torch's fused AdamW (one kernel over every parameter), or the per-parameter loop."""
    if os.environ.get("TOY_FUSED_ADAMW", "1") != "0":
        return torch.optim.AdamW(params, lr=lr, weight_decay=0.01, fused=True)
    return torch.optim.AdamW(params, lr=lr, weight_decay=0.01, foreach=False)
