"""A tiny decoder-only language model whose fused kernels sit behind env knobs.

It exists to be scanned by ``knobs scan`` and triaged by ``knobs triage``: every
fusion has an eager path and a fused (Triton or threaded) path, gated by a
``TOY_*`` environment variable the way real training code gates them.
"""

from __future__ import annotations

from toymodel.layers import MissingTritonError
from toymodel.model import ModelConfig, ToyLM

__all__ = ["MissingTritonError", "ModelConfig", "ToyLM"]
