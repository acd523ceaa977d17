"""`knobs triage --compare checksums:DIR` through the real CLI: a small torch job whose knob
changes the head's input gradient from run to run; `--record` keeps where, and `knobs
explain` shows it."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pytest

from tests.conftest import run_knobs, write_tree

REGISTRY = """
version: 1
knobs:
  DEMO_ATOMIC_BWD:
    default: "1"
    default_on: true
    role: kernel
    triage: untriaged
    gates:
      kernel: the head's input gradient added in thread order
      pass: backward
  DEMO_FUSED_ACT:
    default: "1"
    default_on: true
    role: kernel
    triage: untriaged
    gates:
      kernel: the activation in one kernel
profiles:
  bitwise:
    description: Every untriaged knob off.
    kind: bitwise
    select:
      - default_on: true
        triage_not: reproducible
        set: "off"
"""

# DEMO_ATOMIC_BWD scales the head's input gradient by an amount that depends on the run's
# folder (run-1, run-2): a difference the same way every time, in the backward pass only.
TRAIN = """
import os
from pathlib import Path

import torch
from torch import nn

from knobregistry.torch import checksums_from_env


class ThreadOrderLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x @ weight.t()

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        grad_x = grad @ weight
        if os.environ.get("DEMO_ATOMIC_BWD", "1") != "0":
            grad_x = grad_x * (1 + int(Path.cwd().name[-1]) * 2.0**-20)
        return grad_x, grad.t() @ x


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 4) / 2)

    def forward(self, x):
        return ThreadOrderLinear.apply(x, self.weight)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.act = nn.SiLU() if os.environ.get("DEMO_FUSED_ACT", "1") != "0" else nn.Tanh()
        self.head = Head()

    def forward(self, x):
        return self.head(self.act(self.body(x)))


torch.manual_seed(0)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
checksums_from_env(model, optimizer)
x = torch.linspace(-1, 1, 15).reshape(5, 3)
for step in range(3):
    optimizer.zero_grad()
    model(x).square().sum().backward()
    optimizer.step()
print("done")
"""

OUTPUT = """\
knobs triage: PYTHON train.py
compare: checksums:ck; runs per setting: 2; profile: bitwise; candidates: 2
sweep      knobs on          verdict          runs
──────────────────────────────────────────────────
baseline   -                 reproducible        2
alone      DEMO_ATOMIC_BWD   breaks-bitwise      2
alone      DEMO_FUSED_ACT    reproducible        2

DEMO_ATOMIC_BWD: run 2 differs from run 1 in its checksums: first difference at step 0, \
backward, head (grad_input[0]); 3 more modules differ after it

Breaks bitwise reproducibility alone: DEMO_ATOMIC_BWD.
Reproducible alone: DEMO_FUSED_ACT.
Runs of the command: 6 (baseline 2, alone 4).

Recorded in registry.yaml:
  DEMO_ATOMIC_BWD: untriaged -> breaks-bitwise; 1 record added
  DEMO_FUSED_ACT: untriaged -> reproducible; 1 record added
"""


@pytest.mark.slow
def test_triage_names_the_module_step_and_pass_and_records_it(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY, "train.py": TRAIN})
    done = run_knobs(
        "triage", "--profile", "bitwise", "--compare", "checksums:ck", "--record",
        "--", sys.executable, "train.py", cwd=project,
    )  # fmt: skip
    assert (done.returncode, done.stdout.replace(sys.executable, "PYTHON")) == (1, OUTPUT)
    registry = (project / "registry.yaml").read_text()
    assert "          diverges: step 0, backward, head (grad_input[0])\n" in registry
    assert registry.count("diverges:") == 1  # not on the reproducible knob's record

    explained = run_knobs("explain", "DEMO_ATOMIC_BWD", cwd=project)
    today = datetime.date.today().isoformat()
    evidence = [line for line in explained.stdout.splitlines() if "evidence" in line]
    at = explained.stdout.splitlines().index(evidence[0])
    assert explained.stdout.splitlines()[at : at + 2] == [
        f"  evidence   records: 1 (latest {today}: breaks-bitwise)",
        f"             diverges: step 0, backward, head (grad_input[0]), recorded {today} "
        "with checksums:ck",
    ]


def test_a_command_that_records_nothing_is_an_error_that_says_how(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY})
    done = run_knobs(
        "triage", "--profile", "bitwise", "--compare", "checksums:ck",
        "--", sys.executable, "-c", "print('trained')", cwd=project,
    )  # fmt: skip
    assert done.returncode == 4, done.stderr  # the baseline failed
    assert (
        "baseline: run 1 wrote no folder ck; the training script must call "
        "checksums_from_env(model, optimizer) from knobregistry.torch "
        "(python -m pydoc knobregistry.torch)\n"
    ) in done.stdout
