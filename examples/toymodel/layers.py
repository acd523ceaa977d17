"""Layers of the toy model. Each fusion has an eager path and a fused path.

The fused paths are switched by environment knobs that are on by default, the way
fused kernels are usually gated in training code. Triton kernels live in
``kernels.py``, imported only when a Triton path actually runs.
"""

from __future__ import annotations

import importlib
import math
import os
from types import ModuleType
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from toymodel.envs import fusion_enabled


class MissingTritonError(RuntimeError):
    """A Triton-backed fusion is switched on but triton cannot be imported."""


def _triton_kernels(knob: str) -> ModuleType:
    try:
        return importlib.import_module("toymodel.kernels")
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "triton":
            raise
        everything_eager = " ".join(f"{name}=0" for name in _TRITON_BACKED)
        raise MissingTritonError(
            f"{knob} is on, and its fused path is a Triton kernel, but triton cannot be "
            f"imported ({exc}). Install triton, or set {knob}=0 for the eager path "
            f"(to run without triton at all: {everything_eager})."
        ) from exc


# --------------------------------------------------------------------------- RMSNorm


def rmsnorm_triton_enabled() -> bool:
    # Default on; PRIMUS-style escape hatch: TOY_RMSNORM_TRITON=0.
    return os.environ.get("TOY_RMSNORM_TRITON", "1") != "0"


def rmsnorm_eager(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


class _RMSNormTriton(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return _triton_kernels("TOY_RMSNORM_TRITON").rmsnorm_fwd(x, weight, eps)  # type: ignore[no-any-return]

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        # No Triton backward yet: recompute the eager formula and let autograd do it.
        x, weight = ctx.saved_tensors
        with torch.enable_grad():
            x_ = x.detach().requires_grad_(True)
            w_ = weight.detach().requires_grad_(True)
            dx, dw = torch.autograd.grad(rmsnorm_eager(x_, w_, ctx.eps), (x_, w_), grad_out)
        return dx, dw, None


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if rmsnorm_triton_enabled():
            return _RMSNormTriton.apply(x, self.weight, self.eps)  # type: ignore[no-untyped-call,no-any-return]
        return rmsnorm_eager(x, self.weight, self.eps)


# ------------------------------------------------------------------------------ RoPE

_ROPE_KNOB = "TOY_ROPE_TRITON"

# The knobs whose fused path needs triton, for the error message above.
_TRITON_BACKED = ("TOY_RMSNORM_TRITON", _ROPE_KNOB, "TOY_SWIGLU_FUSED")

# Keep the cos/sin tables between calls instead of rebuilding them every forward.
_ROPE_CACHE = os.environ.get("TOY_ROPE_CACHE", "1").lower() not in ("0", "false", "no", "off", "")


def rope_tables(seq_len: int, head_dim: int, base: float) -> tuple[torch.Tensor, torch.Tensor]:
    half = head_dim // 2
    inv_freq = 1.0 / (base ** (torch.arange(half, dtype=torch.float32) / half))
    angles = torch.outer(torch.arange(seq_len, dtype=torch.float32), inv_freq)
    return angles.cos(), angles.sin()


def rope_eager(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate-half RoPE on ``x`` of shape [batch, seq, heads, head_dim]."""
    x1, x2 = x.chunk(2, dim=-1)
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1)


class _RoPETriton(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(cos, sin)
        return _triton_kernels(_ROPE_KNOB).rope(x, cos, sin, inverse=False)  # type: ignore[no-any-return]

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        # A rotation's transpose is the rotation by -theta: same kernel, sin negated.
        cos, sin = ctx.saved_tensors
        return _triton_kernels(_ROPE_KNOB).rope(grad_out, cos, sin, inverse=True), None, None


class RotaryEmbedding(nn.Module):
    def __init__(self, head_dim: int, base: float = 10000.0) -> None:
        super().__init__()
        self.head_dim = head_dim
        self.base = base
        self._tables: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def tables(self, seq_len: int) -> tuple[torch.Tensor, torch.Tensor]:
        if not _ROPE_CACHE:
            return rope_tables(seq_len, self.head_dim, self.base)
        if seq_len not in self._tables:
            self._tables[seq_len] = rope_tables(seq_len, self.head_dim, self.base)
        return self._tables[seq_len]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cos, sin = self.tables(x.shape[1])
        if os.environ.get(_ROPE_KNOB, "1") == "0":
            return rope_eager(x, cos, sin)
        return _RoPETriton.apply(x, cos, sin)  # type: ignore[no-untyped-call,no-any-return]


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, n_heads: int) -> None:
        super().__init__()
        if dim % n_heads:
            raise ValueError(f"dim {dim} is not a multiple of n_heads {n_heads}")
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)
        self.rope = RotaryEmbedding(self.head_dim)

    def forward(self, x: torch.Tensor, fused_sdpa: bool = False) -> torch.Tensor:
        batch, seq_len, dim = x.shape
        qkv = self.qkv(x).view(batch, seq_len, 3, self.n_heads, self.head_dim)
        q, k, v = qkv.unbind(dim=2)
        q, k = self.rope(q), self.rope(k)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # [batch, heads, seq, head_dim]
        if fused_sdpa:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
            causal = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
            scores = scores.masked_fill(~causal, float("-inf"))
            out = scores.softmax(dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(batch, seq_len, dim))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- SwiGLU


def swiglu_eager(gate_up: torch.Tensor) -> torch.Tensor:
    gate, up = gate_up.chunk(2, dim=-1)
    return F.silu(gate) * up


class _SwiGLUTriton(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, gate_up: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(gate_up)
        return _triton_kernels("TOY_SWIGLU_FUSED").swiglu_fwd(gate_up)  # type: ignore[no-any-return]

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> torch.Tensor:
        (gate_up,) = ctx.saved_tensors
        # The backward kernel landed after the forward one; 0 goes back to autograd.
        if bool(int(os.environ.get("TOY_SWIGLU_TRITON_BWD", "1"))):
            kernels = _triton_kernels("TOY_SWIGLU_TRITON_BWD")
            return kernels.swiglu_bwd(gate_up, grad_out)  # type: ignore[no-any-return]
        with torch.enable_grad():
            gu = gate_up.detach().requires_grad_(True)
            (dgu,) = torch.autograd.grad(swiglu_eager(gu), (gu,), grad_out)
        return dgu


class SwiGLUMLP(nn.Module):
    def __init__(self, dim: int, ffn_dim: int) -> None:
        super().__init__()
        self.gate_up = nn.Linear(dim, 2 * ffn_dim, bias=False)
        self.down = nn.Linear(ffn_dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate_up = self.gate_up(x)
        if fusion_enabled("TOY_SWIGLU_FUSED"):
            hidden = _SwiGLUTriton.apply(gate_up)  # type: ignore[no-untyped-call]
        else:
            hidden = swiglu_eager(gate_up)
        return self.down(hidden)  # type: ignore[no-any-return]
