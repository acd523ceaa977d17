"""Fused LM head + cross-entropy, reduced with atomic adds.

The logits are the largest activation of a language model, so fused kernels never
materialise them for the whole batch: each program takes a block of tokens and
computes their logits, their loss and their gradients right away, in the forward
pass. The per-token loss and the per-token contribution to the LM-head weight
gradient are then ``atomic_add``-ed into shared float32 buffers. The adds land in
whatever order the programs reach them, and float addition is not associative, so
the low bits of the loss and of the gradient change from run to run.

This module does the same on the CPU with a thread pool: one block of tokens per
worker (a persistent kernel, one program per SM), each worker adding into the
shared accumulators under a lock (the "atomic"), one token at a time, in the
order the workers get there. Nothing here is random: the nondeterminism is the
thread schedule, exactly as on the GPU.
"""

from __future__ import annotations

import threading
from concurrent.futures import as_completed
from typing import Any

import torch

from toymodel.workers import WORKERS, pool


def _forward_backward(
    hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Mean cross-entropy of ``hidden @ weight.T`` and its gradients, block by block."""
    hidden, weight = hidden.detach().float(), weight.detach().float()
    n_tokens = hidden.shape[0]
    loss_sum = torch.zeros((), dtype=torch.float32)
    grad_weight = torch.zeros_like(weight)
    grad_hidden = torch.empty_like(hidden)
    atomic = threading.Lock()

    def program(start: int, stop: int) -> None:
        # Grad mode is per thread, and the gradients here are computed by hand.
        with torch.no_grad():
            h, t = hidden[start:stop], targets[start:stop]
            logits = h @ weight.t()
            lse = torch.logsumexp(logits, dim=-1)
            token_loss = lse - logits.gather(1, t[:, None]).squeeze(1)
            # d(mean loss)/d(logits) = (softmax - onehot) / n_tokens
            grad_logits = torch.exp(logits - lse[:, None])
            grad_logits[torch.arange(stop - start), t] -= 1.0
            grad_logits /= n_tokens
            grad_hidden[start:stop] = grad_logits @ weight  # this program's own rows
            for i in range(stop - start):
                contribution = torch.outer(grad_logits[i], h[i])
                with atomic:  # atomic_add(loss, ...); atomic_add(grad_weight, ...)
                    loss_sum.add_(token_loss[i])
                    grad_weight.add_(contribution)

    block = -(-n_tokens // WORKERS)
    workers = pool("toy-linear-ce")
    futures = [
        workers.submit(program, start, min(start + block, n_tokens))
        for start in range(0, n_tokens, block)
    ]
    for future in as_completed(futures):
        future.result()  # re-raise a worker's exception here
    return loss_sum / n_tokens, grad_hidden, grad_weight


class _FusedLinearCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor
    ) -> torch.Tensor:
        loss, grad_hidden, grad_weight = _forward_backward(hidden, weight, targets)
        ctx.save_for_backward(grad_hidden.to(hidden.dtype), grad_weight.to(weight.dtype))
        return loss.to(hidden.dtype)

    @staticmethod
    def backward(ctx: Any, grad_loss: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        grad_hidden, grad_weight = ctx.saved_tensors
        return grad_hidden * grad_loss, grad_weight * grad_loss, None


def fused_linear_cross_entropy(
    hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor
) -> torch.Tensor:
    """``F.cross_entropy(hidden @ weight.T, targets)`` without materialising all logits.

    ``hidden`` is [..., dim], ``weight`` [vocab, dim], ``targets`` [...] token ids.
    """
    flat = hidden.reshape(-1, hidden.shape[-1]).contiguous()
    loss = _FusedLinearCrossEntropy.apply(flat, weight, targets.reshape(-1))  # type: ignore[no-untyped-call]
    return loss  # type: ignore[no-any-return]
