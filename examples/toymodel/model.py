"""A tiny decoder-only transformer: embedding, pre-norm blocks, LM head + loss."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from os import environ as ENV

import torch
import torch.nn.functional as F
from torch import nn

from toymodel.embedding import embed
from toymodel.envs import env_flag
from toymodel.layers import CausalSelfAttention, RMSNorm, SwiGLUMLP
from toymodel.linear_ce import fused_linear_cross_entropy

# Fusions owned by the model rather than by one layer. Looked up on every call, so
# a test can flip them with monkeypatch.setenv between steps.
_MODEL_FUSIONS: dict[str, Callable[[], bool]] = {
    # LM head and loss in one chunked pass; see linear_ce.py.
    "linear_cross_entropy": lambda: env_flag("TOY_FUSED_LINEAR_CE", default=True),
    # torch's fused scaled_dot_product_attention; opt-in until it has soaked.
    "sdpa": lambda: ENV.get("TOY_FUSED_SDPA", "false").lower() in ("true", "1"),
}


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 64
    dim: int = 32
    n_heads: int = 2
    n_layers: int = 2
    ffn_dim: int = 64
    norm_eps: float = 1e-6
    init_std: float = 0.02


class Block(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(config.dim, config.norm_eps)
        self.attn = CausalSelfAttention(config.dim, config.n_heads)
        self.mlp_norm = RMSNorm(config.dim, config.norm_eps)
        self.mlp = SwiGLUMLP(config.dim, config.ffn_dim)

    def forward(self, x: torch.Tensor, fused_sdpa: bool) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), fused_sdpa=fused_sdpa)
        return x + self.mlp(self.mlp_norm(x))  # type: ignore[no-any-return]


class ToyLM(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.dim)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.norm = RMSNorm(config.dim, config.norm_eps)
        self.lm_head = nn.Linear(config.dim, config.vocab_size, bias=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=self.config.init_std)

    def hidden_states(self, tokens: torch.Tensor) -> torch.Tensor:
        fused_sdpa = _MODEL_FUSIONS["sdpa"]()
        x = embed(tokens, self.embed.weight)
        for block in self.blocks:
            x = block(x, fused_sdpa=fused_sdpa)
        return self.norm(x)  # type: ignore[no-any-return]

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits, [batch, seq, vocab]."""
        return self.lm_head(self.hidden_states(tokens))  # type: ignore[no-any-return]

    def loss(self, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy."""
        hidden = self.hidden_states(tokens)
        if _MODEL_FUSIONS["linear_cross_entropy"]():
            return fused_linear_cross_entropy(hidden, self.lm_head.weight, targets)
        logits = self.lm_head(hidden)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
