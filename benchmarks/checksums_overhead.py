"""What recording per-module checksums (knobregistry.torch) costs a training step.

    python benchmarks/checksums_overhead.py [--layers 8] [--dim 256] [--steps 10]

A stack of pre-norm MLP blocks (LayerNorm, Linear, GELU, Linear: five modules a block)
trains with AdamW on the CPU, in this process, three ways: (a) unhooked; (b) recording
every step (hooks on every module and parameter, each step's records rewritten to disk,
the last 2 steps kept); (c) recording the first 4 steps (the default bound), timed after
them, when the hooks are gone. Each way trains 4 steps, then ``--steps`` timed steps;
the best of ``--repeat`` rounds (the three ways interleaved in each), on ``--threads``
threads (default 1: a shared machine disturbs it less). Printed: seconds per step, the
ratio to (a), the records and tensor bytes fingerprinted per step, and the bytes written.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import torch
from torch import nn

from knobregistry.torch import knobs_checksums

WAYS = ("plain", "every", "after")
WARM_UP = 4  # steps before the timed ones; (c) records these, the default bound


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(self.act(self.up(self.norm(x))))  # type: ignore[no-any-return]


def build(layers: int, dim: int) -> tuple[nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(0)
    model = nn.Sequential(*(Block(dim) for _ in range(layers)))
    return model, torch.optim.AdamW(model.parameters(), lr=1e-3)


def steps(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor, n: int) -> float:
    """Seconds per step over ``n`` steps."""
    start = time.perf_counter()
    for _ in range(n):
        optimizer.zero_grad()
        model(x).square().mean().backward()
        optimizer.step()
    return (time.perf_counter() - start) / n


def measure(
    args: argparse.Namespace, way: str, out: Path, x: torch.Tensor
) -> tuple[float, int, int, int]:
    """Seconds per step of one way, one round; records, tensor bytes, file bytes a step."""
    model, optimizer = build(args.layers, args.dim)
    checksums = None
    if way == "every":
        checksums = knobs_checksums(model, out, optimizer, first_steps=None, keep_steps=2)
    elif way == "after":
        checksums = knobs_checksums(model, out, optimizer, first_steps=WARM_UP)
    steps(model, optimizer, x, WARM_UP)  # every way times the same steps of training
    seconds = steps(model, optimizer, x, args.steps)
    records, tensor_bytes, file_bytes = 0, 0, 0
    if way == "every":
        lines = (out / "rank-0.jsonl").read_text().splitlines()[1:]
        final = json.loads(lines[-1])["step"]
        last = [line for line in lines if json.loads(line)["step"] == final]
        records = len(last)
        tensor_bytes = sum(_bytes(line) for line in last)
        file_bytes = (out / "rank-0.jsonl").stat().st_size // 2  # two steps kept
    if checksums is not None:
        checksums.close()
    return seconds, records, tensor_bytes, file_bytes


def _bytes(line: str) -> int:
    record = json.loads(line)
    size = {"float32": 4, "float64": 8, "bfloat16": 2, "float16": 2}.get(record["dtype"], 4)
    count = 1
    for extent in record["shape"]:
        count *= extent
    return count * size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=8, help="blocks (default 8)")
    parser.add_argument("--dim", type=int, default=256, help="hidden size (default 256)")
    parser.add_argument("--batch", type=int, default=8, help="sequences a step (default 8)")
    parser.add_argument("--seq", type=int, default=128, help="tokens a sequence (default 128)")
    parser.add_argument("--steps", type=int, default=10, help="timed steps (default 10)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds, best kept (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model, _ = build(args.layers, args.dim)
    modules = sum(1 for _ in model.modules())
    parameters = sum(p.numel() for p in model.parameters())
    print(
        f"model: {args.layers} blocks, dim {args.dim}, {modules} modules, "
        f"{parameters / 1e6:.2f} M parameters; batch {args.batch}x{args.seq}; "
        f"{args.steps} steps, best of {args.repeat}; torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads"
    )
    x = torch.randn(args.batch, args.seq, args.dim, generator=torch.Generator().manual_seed(1))
    best = {way: float("inf") for way in WAYS}
    with tempfile.TemporaryDirectory(prefix="knobs-checksums-bench-") as temporary:
        folder = Path(temporary)
        measure(args, "plain", folder / "warm", x)  # the process's lazy set-up, not counted
        for round_ in range(args.repeat):  # the ways interleaved, so drift hits each alike
            for way in WAYS:
                seconds, *sizes = measure(args, way, folder / f"{way}-{round_}", x)
                best[way] = min(best[way], seconds)
                if way == "every":
                    records, tensor_bytes, file_bytes = sizes
    plain, every, after = (best[way] for way in WAYS)
    print(f"(a) unhooked                {plain:9.4f} s/step")
    print(f"(b) recording every step    {every:9.4f} s/step   b/a {every / plain:.2f}")
    print(f"(c) after the first steps   {after:9.4f} s/step   c/a {after / plain:.2f}")
    print(
        f"per recorded step: {records} records, {tensor_bytes / 1e6:.1f} MB of tensors "
        f"fingerprinted, {file_bytes / 1e3:.1f} KB written"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
