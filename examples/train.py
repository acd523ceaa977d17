#!/usr/bin/env python3
"""Train the toy model for a few steps on fixed synthetic data, on the CPU.

Prints one line per step, ``step N lm loss X``, where X is ``repr`` of the float32
loss, so two runs agree on a line only if their losses agree bit for bit. This is
the command ``knobs triage`` runs under each knob setting:

    TRITON_INTERPRET=1 python examples/train.py [--steps N] [--save-tensors PATH]
"""

from __future__ import annotations

import os

# Every tensor here lives on the CPU, where Triton only runs through its interpreter.
# Triton reads this when it is imported, and torch may import it, so set it first.
os.environ.setdefault("TRITON_INTERPRET", "1")

import argparse
import json
import random
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from toymodel import MissingTritonError, ModelConfig, ToyLM
from toymodel.optim import make_optimizer

try:  # `knobs triage --compare checksums:DIR` reads what this records
    from knobregistry.torch import checksums_from_env
except ImportError:  # knobs is not installed where this runs: no checksums

    def checksums_from_env(model: torch.nn.Module, optimizer: object = None) -> None:
        """Records nothing: knobregistry.torch is not installed."""


BATCH = 4
SEQ_LEN = 16


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return
    np.random.seed(seed)


def synthetic_batch(vocab_size: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Zipf-distributed token ids: a few ids are frequent, as in real text."""
    generator = torch.Generator().manual_seed(seed)
    weights = 1.0 / torch.arange(1, vocab_size + 1, dtype=torch.float64)
    ids = torch.multinomial(weights, BATCH * (SEQ_LEN + 1), replacement=True, generator=generator)
    ids = ids.view(BATCH, SEQ_LEN + 1)
    return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="optimizer steps (default 10)")
    parser.add_argument("--seed", type=int, default=1234, help="seed for init and data")
    parser.add_argument("--lr", type=float, default=1e-2, help="AdamW learning rate")
    parser.add_argument(
        "--timing",
        action="store_true",
        help="print the loop's time and its modelled GPU time at the end (see modelled_time)",
    )
    parser.add_argument(
        "--save-tensors",
        type=Path,
        metavar="PATH",
        help="torch.save the final parameters (a name -> tensor dict) to PATH",
    )
    return parser.parse_args(argv)


def train(args: argparse.Namespace, dump: TextIO | None) -> dict[str, torch.Tensor]:
    seed_everything(args.seed)
    model = ToyLM(ModelConfig())
    tokens, targets = synthetic_batch(model.config.vocab_size, args.seed)
    optimizer = make_optimizer(model.parameters(), args.lr)
    checksums_from_env(model, optimizer)  # per-module checksums when KNOBS_CHECKSUMS is set

    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        optimizer.zero_grad(set_to_none=True)
        loss = model.loss(tokens, targets)
        loss.backward()  # type: ignore[no-untyped-call]
        value = float(loss.item())
        print(f"step {step} lm loss {value!r}", flush=True)
        if dump is not None:
            grad_norms = {
                name: float(p.grad.norm()).hex()
                for name, p in model.named_parameters()
                if p.grad is not None
            }
            record = {"step": step, "loss": value.hex(), "grad_norm": grad_norms}
            dump.write(json.dumps(record) + "\n")
        optimizer.step()
    if args.timing:
        print(timing(time.perf_counter() - start, optimizer, args.steps), flush=True)

    return {name: p.detach().clone() for name, p in model.named_parameters()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(1)  # only the deliberate atomic path may reorder float adds
    torch.use_deterministic_algorithms(True)

    with ExitStack() as stack:
        dump: TextIO | None = None
        if "TOY_DEBUG_DUMP" in os.environ:
            # Diagnostic: per-step loss and gradient norms as exact hex floats, JSON lines.
            dump_path = Path(os.environ["TOY_DEBUG_DUMP"])
            dump = stack.enter_context(dump_path.open("a", encoding="utf-8"))
        try:
            params = train(args, dump)
        except MissingTritonError as exc:
            print(f"train.py: error: {exc}", file=sys.stderr)
            return 2

    if args.save_tensors is not None:
        torch.save(params, args.save_tensors)
    return 0


# What one step of each path the bitwise profile turns off would take on a GPU, in
# microseconds, at the shapes these kernels stand for: a fused path's kernel against the
# separate kernels and memory round trips of the path it replaces. On the CPU the Triton
# kernels run in Triton's interpreter and the atomic paths are Python loops, so the wall
# time orders them by noise (it varies from run to run by more than they save); this
# model orders them as a GPU would, the same in every run.
MODELLED_US = {
    "linear cross-entropy": {"fused": 40, "logits": 100},  # TOY_FUSED_LINEAR_CE
    "AdamW": {"fused": 20, "per parameter": 60},  # TOY_FUSED_ADAMW
    "embedding backward": {  # TOY_EMBED_GRAD_PARALLEL, TOY_EMBED_GRAD_ATOMIC
        "F.embedding": 60,  # both off: torch's deterministic backward (sort, then reduce)
        "parallel, per-block buffers": 30,
        "one thread, atomic adds": 40,
        "parallel, atomic adds": 10,
    },
}


def modelled_time(optimizer: torch.optim.Optimizer, steps: int) -> int:
    """The modelled GPU time of ``steps`` steps of the paths that ran (MODELLED_US)."""
    from toymodel.workers import ran, started

    parallel = started("toy-embed-grad")
    atomic = "embed-grad-atomic" in ran
    if parallel:
        embedding = "parallel, atomic adds" if atomic else "parallel, per-block buffers"
    else:
        embedding = "one thread, atomic adds" if atomic else "F.embedding"
    step = (
        MODELLED_US["linear cross-entropy"]["fused" if started("toy-linear-ce") else "logits"]
        + MODELLED_US["AdamW"]["fused" if optimizer.defaults.get("fused") else "per parameter"]
        + MODELLED_US["embedding backward"][embedding]
    )
    return step * steps


def timing(seconds: float, optimizer: torch.optim.Optimizer, steps: int) -> str:
    """`train time S s` (measured) and `modelled GPU time T us` (modelled_time)."""
    modelled = modelled_time(optimizer, steps)
    return f"train time {seconds:.6f} s\nmodelled GPU time {modelled} us"


if __name__ == "__main__":
    sys.exit(main())
