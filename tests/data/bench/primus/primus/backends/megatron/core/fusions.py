"""Fused kernels of the tiny Primus: each on by default behind its own gate."""

import os

import torch


def is_triton_path_enabled() -> bool:
    """The Triton kernel is used unless PRIMUS_HC_TRITON=0."""
    # default on: a "deterministic" run must turn it off explicitly
    return os.environ.get("PRIMUS_HC_TRITON", "1") != "0"


def hyper_connection(x: torch.Tensor) -> torch.Tensor:
    if is_triton_path_enabled():
        return x.clone()
    return x
