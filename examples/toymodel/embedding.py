"""Token embedding whose backward scatters each token's gradient into its row.

An embedding's backward adds every token's output gradient into the weight row of
its id. On a GPU that is a scatter of ``atomic_add``-s, and frequent ids (the text
is Zipf-distributed) get many adds into the same row. Two fusions, each on by
default:

- ``TOY_EMBED_GRAD_PARALLEL``: the scatter runs on a pool of workers, one block of
  tokens each, as a kernel's grid of blocks does. Each block scatters into a
  buffer of its own, and the buffers are added in block order at the end: the
  same bits every run.
- ``TOY_EMBED_GRAD_ATOMIC``: each token's gradient is added straight into the shared
  weight gradient (the ``atomic_add``), with no per-block buffer and no second
  pass. On one thread the tokens arrive in order, so alone it changes nothing
  from run to run.

Each is reproducible alone. Together, the tokens of different blocks that share an
id reach its row in whatever order the threads get there, and float addition is
not associative: the low bits of the gradient, then of every parameter, change
from run to run. Only a run of the two together finds it. Nothing here is random:
the thread schedule is the only source of the difference.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import torch
import torch.nn.functional as F

from toymodel.envs import fusion_enabled
from toymodel.workers import WORKERS, pool, ran


def _scatter(ids: torch.Tensor, grad: torch.Tensor, rows: int) -> torch.Tensor:
    """``sum over tokens t of onehot(ids[t]) * grad[t]``, [rows, dim], block by block."""
    atomic = os.environ.get("TOY_EMBED_GRAD_ATOMIC", "1") != "0"
    grad_weight = torch.zeros(rows, grad.shape[-1], dtype=grad.dtype)
    lock = threading.Lock()

    def program(tokens: torch.Tensor) -> torch.Tensor | None:
        own = None if atomic else torch.zeros_like(grad_weight)
        for t in tokens.tolist():
            row = int(ids[t])
            if own is None:
                with lock:  # atomic_add(grad_weight[row], grad[t])
                    grad_weight[row].add_(grad[t])
            else:
                own[row].add_(grad[t])
        return own

    tokens = torch.arange(ids.numel())
    if fusion_enabled("TOY_EMBED_GRAD_PARALLEL"):
        workers = pool("toy-embed-grad")
        blocks = torch.tensor_split(tokens, WORKERS)
        owns = [f.result() for f in [workers.submit(program, block) for block in blocks]]
    else:
        owns = [program(tokens)]
    for own in owns:  # in block order
        if own is not None:
            grad_weight.add_(own)
    ran.add("embed-grad-atomic" if atomic else "embed-grad-buffers")
    return grad_weight


class _Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(ids)
        ctx.rows = weight.shape[0]
        return weight.index_select(0, ids.reshape(-1)).reshape(*ids.shape, weight.shape[-1])

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[None, torch.Tensor]:
        (ids,) = ctx.saved_tensors
        flat = grad_out.reshape(-1, grad_out.shape[-1])
        with torch.no_grad():
            return None, _scatter(ids.reshape(-1), flat, ctx.rows)


def embed(ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """``F.embedding(ids, weight)``; its backward goes through the fused scatter unless
    both knobs are off."""
    if not fusion_enabled("TOY_EMBED_GRAD_PARALLEL") and (
        os.environ.get("TOY_EMBED_GRAD_ATOMIC", "1") == "0"
    ):
        return F.embedding(ids, weight)
    return _Embedding.apply(ids, weight)  # type: ignore[no-any-return, no-untyped-call]
