"""knobregistry.torch: what the recorder writes, with real torch, in one process and in two
ranks (gloo, on the CPU); the records read back by triage's compare."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

from knobregistry.registry import Verdict
from knobregistry.torch import checksums_from_env, knobs_checksums
from knobregistry.torch.checksums import fingerprint
from knobregistry.triage import Run, judge, parse_compare
from tests.conftest import REPO, write_tree


def places(folder: Path, rank: int = 0) -> list[tuple[Any, ...]]:
    lines = (folder / f"rank-{rank}.jsonl").read_text().splitlines()
    return [
        (r["step"], r["pass"], r["module"], r["tensor"], r["shape"])
        for r in map(json.loads, lines[1:])
    ]


def small_model() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


def train(model: nn.Module, optimizer: torch.optim.Optimizer, steps: int) -> None:
    x = torch.linspace(-1, 1, 15).reshape(5, 3)
    for _ in range(steps):
        optimizer.zero_grad()
        model(x).square().sum().backward()
        optimizer.step()


# One step of small_model, in the order the hooks run: the forward outputs, then the
# backward from the output (a parameter's gradient as it is accumulated, then the
# module's grad_output and grad_input). The input needs no gradient: no grad_input of 0.
ONE_STEP = [
    (0, "forward", "0", "output", [5, 4]),
    (0, "forward", "1", "output", [5, 4]),
    (0, "forward", "2", "output", [5, 2]),
    (0, "forward", "model", "output", [5, 2]),
    (0, "backward", "model", "grad_output[0]", [5, 2]),
    (0, "backward", "2", "bias.grad", [2]),
    (0, "backward", "2", "weight.grad", [2, 4]),
    (0, "backward", "2", "grad_output[0]", [5, 2]),
    (0, "backward", "2", "grad_input[0]", [5, 4]),
    (0, "backward", "1", "grad_output[0]", [5, 4]),
    (0, "backward", "1", "grad_input[0]", [5, 4]),
    (0, "backward", "0", "grad_output[0]", [5, 4]),
    (0, "backward", "0", "bias.grad", [4]),
    (0, "backward", "0", "weight.grad", [4, 3]),
]


def test_one_step_is_recorded_in_execution_order(tmp_path: Path) -> None:
    model = small_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    checksums = knobs_checksums(model, tmp_path / "ck", optimizer, first_steps=1)
    train(model, optimizer, 3)
    assert places(tmp_path / "ck") == ONE_STEP
    header = json.loads((tmp_path / "ck" / "rank-0.jsonl").read_text().splitlines()[0])
    assert header == {
        "format": "knobs-checksums", "version": 1, "rank": 0, "world_size": 1,
        "first_steps": 1, "keep_steps": None, "torch": str(torch.__version__),
    }  # fmt: skip
    # After the first steps every hook is removed, the optimizer's too: no cost after them.
    assert (checksums.step_number, checksums.recording) == (1, False)
    assert not model[0]._forward_hooks
    assert not optimizer._optimizer_step_post_hooks


def test_the_same_training_twice_gives_the_same_file(tmp_path: Path) -> None:
    for name in ("a", "b"):
        model = small_model()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        knobs_checksums(model, tmp_path / name, optimizer, first_steps=2)
        train(model, optimizer, 2)
    assert (tmp_path / "a" / "rank-0.jsonl").read_bytes() == (
        tmp_path / "b" / "rank-0.jsonl"
    ).read_bytes()
    assert [p[0] for p in places(tmp_path / "a")] == [0] * 14 + [1] * 14


def test_every_step_with_a_ring_keeps_the_last_ones(tmp_path: Path) -> None:
    model = small_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    knobs_checksums(model, tmp_path / "ck", optimizer, first_steps=None, keep_steps=2)
    train(model, optimizer, 5)
    assert sorted({p[0] for p in places(tmp_path / "ck")}) == [3, 4]


def test_an_explicit_step_and_close_write_the_step_in_progress(tmp_path: Path) -> None:
    model = small_model()
    checksums = knobs_checksums(model, tmp_path / "ck")
    model(torch.ones(1, 3))
    checksums.step()
    model(torch.ones(1, 3))
    checksums.close()
    assert [(p[0], p[2]) for p in places(tmp_path / "ck")] == [
        (0, "0"), (0, "1"), (0, "2"), (0, "model"), (1, "0"), (1, "1"), (1, "2"), (1, "model")
    ]  # fmt: skip


class Wrapped:
    """An optimizer that is not torch's (as Megatron's are): its step method is wrapped."""

    def __init__(self, inner: torch.optim.Optimizer) -> None:
        self.inner = inner

    def step(self) -> str:
        self.inner.step()
        return "stepped"


def test_an_optimizer_that_is_not_torchs_has_its_step_wrapped(tmp_path: Path) -> None:
    model = small_model()
    wrapped = Wrapped(torch.optim.SGD(model.parameters(), lr=0.1))
    checksums = knobs_checksums(model, tmp_path / "ck", wrapped)
    assert wrapped.step() == "stepped"
    assert checksums.step_number == 1


def test_the_fingerprint_is_exact() -> None:
    a = torch.tensor([1.0, 2.0, 3.0])
    nudged = a.clone()
    nudged[1] = torch.nextafter(nudged[1], torch.tensor(3.0))
    assert fingerprint(a) == fingerprint(a.clone())
    assert fingerprint(a) != fingerprint(nudged)  # one unit in the last place
    assert fingerprint(a) != fingerprint(a.double())  # same values, another dtype
    assert fingerprint(a) != fingerprint(a.reshape(3, 1))  # same bytes, another shape
    assert fingerprint(torch.tensor([0.0])) != fingerprint(torch.tensor([-0.0]))
    grid = torch.arange(12.0).reshape(3, 4)
    assert fingerprint(grid.t()) == fingerprint(grid.t().contiguous())  # by values, not layout
    assert fingerprint(grid.bfloat16()) != fingerprint(grid.half())
    assert len(fingerprint(torch.empty(0))) == 32


def test_a_tensor_without_data_is_recorded_with_its_reason(tmp_path: Path) -> None:
    checksums = knobs_checksums(nn.Identity(), tmp_path / "ck")
    checksums._record("forward", "model", "output", torch.empty(2, device="meta"))
    checksums.close()
    line = json.loads((tmp_path / "ck" / "rank-0.jsonl").read_text().splitlines()[1])
    assert line["blake2b"] is None
    assert line["why"]


def test_outputs_in_tuples_and_dicts_are_named_by_their_place(tmp_path: Path) -> None:
    class Pair(nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, dict[str, Any]]:
            return x + 1, {"aux": x * 2, "count": 3}

    model = Pair()
    checksums = knobs_checksums(model, tmp_path / "ck")
    model(torch.ones(2))
    checksums.close()
    assert [p[3] for p in places(tmp_path / "ck")] == ["output[0]", "output[1]['aux']"]


def test_nothing_is_hooked_without_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KNOBS_CHECKSUMS", raising=False)
    model = small_model()
    assert checksums_from_env(model) is None
    assert not model[0]._forward_hooks


def test_the_variable_names_the_folder_and_the_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KNOBS_CHECKSUMS", str(tmp_path / "ck"))
    monkeypatch.setenv("KNOBS_CHECKSUMS_STEPS", "all")
    monkeypatch.setenv("KNOBS_CHECKSUMS_KEEP", "3")
    checksums = checksums_from_env(small_model())
    assert checksums is not None
    assert (checksums.folder, checksums.first_steps, checksums.keep_steps) == (
        tmp_path / "ck", None, 3
    )  # fmt: skip
    checksums.close()


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("KNOBS_CHECKSUMS_STEPS", "0", "KNOBS_CHECKSUMS_STEPS='0': give a number of steps, 1 or "
         "more or 'all'."),
        ("KNOBS_CHECKSUMS_STEPS", "ten", "KNOBS_CHECKSUMS_STEPS='ten': give a number of steps, "
         "1 or more or 'all'."),
        ("KNOBS_CHECKSUMS_KEEP", "-2", "KNOBS_CHECKSUMS_KEEP='-2': give a number of steps, 1 or "
         "more."),
    ],
)  # fmt: skip
def test_a_bad_number_of_steps_says_what_to_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv("KNOBS_CHECKSUMS", str(tmp_path / "ck"))
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError) as raised:
        checksums_from_env(small_model())
    assert str(raised.value) == message


def test_the_runtime_is_not_imported_by_the_cli() -> None:
    code = (
        "import sys, knobregistry.cli, knobregistry.triage, knobregistry.commands.triage; "
        "print(sorted(m for m in sys.modules "
        "if m == 'torch' or m.startswith('knobregistry.torch')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


# Two ranks (gloo, on the CPU), each training its own copy of the model on its own half
# of the batch with the gradients all-reduced, three times over in one launch (starting
# torch is most of the cost): `same`, `again`, then `nudged`, where rank 1's second linear
# layer adds a tiny value to its output in step 0. Each training records into its own
# folder (KNOBS_CHECKSUMS set before checksums_from_env), from a fresh model and optimizer.
TWO_RANKS = """
import os, sys
import torch
import torch.distributed as dist
from torch import nn
from knobregistry.torch import checksums_from_env

class Nudge(nn.Module):
    def __init__(self, nudge):
        super().__init__()
        self.nudge = nudge
        self.step = 0
    def forward(self, x):
        self.step += 1
        on = self.nudge and dist.get_rank() == 1 and self.step == 1
        return x + 1e-6 if on else x

dist.init_process_group("gloo")
x = torch.linspace(-1, 1, 30).reshape(10, 3)[5 * dist.get_rank() :][:5]
for name, nudge in (("same", False), ("again", False), ("nudged", True)):
    os.environ["KNOBS_CHECKSUMS"] = os.path.join(sys.argv[1], name, "ck")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2), Nudge(nudge))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    checksums = checksums_from_env(model, optimizer)
    for _ in range(2):
        optimizer.zero_grad()
        model(x).square().sum().backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        optimizer.step()
    checksums.close()
dist.barrier()
sys.stdout.flush()
os._exit(0)  # gloo's teardown at exit can abort
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_two_ranks(script: Path, folder: Path) -> None:
    port = str(_free_port())
    ranks = [
        subprocess.Popen(
            [sys.executable, str(script), str(folder)],
            env={
                **os.environ,
                "PYTHONPATH": str(REPO),
                "RANK": str(rank),
                "WORLD_SIZE": "2",
                "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": port,
            },
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    for process in ranks:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err


def as_run(folder: Path, index: int) -> Run:
    out, err = folder / "stdout", folder / "stderr"
    out.write_text("")
    err.write_text("")
    return Run(index=index, folder=folder, stdout=out, stderr=err, returncode=0)


@pytest.mark.slow
def test_two_ranks_each_write_their_file_and_the_nudged_rank_is_named(tmp_path: Path) -> None:
    write_tree(tmp_path, {"two.py": TWO_RANKS})
    run_two_ranks(tmp_path / "two.py", tmp_path)
    assert sorted(p.name for p in (tmp_path / "same" / "ck").iterdir()) == [
        "rank-0.jsonl",
        "rank-1.jsonl",
    ]
    header = json.loads((tmp_path / "same" / "ck" / "rank-1.jsonl").read_text().splitlines()[0])
    assert (header["rank"], header["world_size"]) == (1, 2)
    mode = parse_compare("checksums:ck")
    same = [as_run(tmp_path / "same", 1), as_run(tmp_path / "again", 2)]
    assert judge(mode, same, None) == (Verdict.REPRODUCIBLE, "")
    nudged = [as_run(tmp_path / "same", 1), as_run(tmp_path / "nudged", 2)]
    assert judge(mode, nudged, None) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in its checksums: first difference at step 0, forward, 3 "
        "(output) on rank 1; 4 more modules differ after it (1 more rank also differs)",
    )


def test_model_chunks_are_named_by_their_chunk(tmp_path: Path) -> None:
    chunks = [nn.Linear(2, 2), nn.Linear(2, 1)]
    checksums = knobs_checksums(chunks, tmp_path / "ck")
    chunks[1](chunks[0](torch.ones(1, 2)))
    checksums.close()
    assert [p[2] for p in places(tmp_path / "ck")] == ["chunk0", "chunk1"]
