"""Distributed outputs: `tensors:FOLDER` (a real torch.distributed.checkpoint of two ranks,
or per-rank .pt files) compared shard by shard, and `regex:` compared rank by rank."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from knobregistry._io.files import FileError, read_range
from knobregistry.registry import Verdict
from knobregistry.triage import Run, judge, parse_compare
from tests.conftest import run_knobs, write_tree

# Two ranks (gloo, on the CPU) save a DTensor sharded by rows, a replicated tensor and a
# plain value with torch.distributed.checkpoint; then again with one element of rank 1's
# shard nudged.
SAVE_DCP = """
import os, sys
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Shard

dist.init_process_group("gloo")
rank = dist.get_rank()
mesh = init_device_mesh("cpu", (2,))
full = torch.arange(16, dtype=torch.float32).reshape(4, 4) / 7
for name, nudge in (("same", False), ("again", False), ("nudged", True)):
    local = full[2 * rank : 2 * rank + 2].clone()
    if nudge and rank == 1:
        local[1, 2] += 0.5
    state = {
        "model": {"layer.weight": DTensor.from_local(local, mesh, [Shard(0)]),
                  "layer.bias": torch.ones(3)},
        "step": 3,
    }
    dcp.save(state, checkpoint_id=os.path.join(sys.argv[1], name))
dist.barrier()  # both ranks saved everything; then out, before gloo's threads are torn down
sys.stdout.flush()
os._exit(0)  # (its teardown at exit can abort: "terminate called without an active exception")
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three checkpoints of the same two ranks: `same`, `again` (equal), `nudged`."""
    root = tmp_path_factory.mktemp("dcp")
    (root / "save.py").write_text(SAVE_DCP)
    port = str(_free_port())
    ranks = [
        subprocess.Popen(
            [sys.executable, str(root / "save.py"), str(root)],
            env={
                **os.environ,
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
    return root


def runs_of(root: Path, checkpoints: Path, *names: str) -> list[Run]:
    runs = []
    for index, name in enumerate(names, 1):
        folder = root / f"run-{index}"
        folder.mkdir(parents=True)
        shutil.copytree(checkpoints / name, folder / "ckpt")
        out, err = root / f"run-{index}.stdout", root / f"run-{index}.stderr"
        out.write_text("")
        err.write_text("")
        runs.append(Run(index=index, folder=folder, stdout=out, stderr=err, returncode=0))
    return runs


def test_a_distributed_checkpoint_is_written_by_two_ranks(checkpoints: Path) -> None:
    assert sorted(p.name for p in (checkpoints / "nudged").iterdir()) == [
        ".metadata",
        "__0_0.distcp",
        "__1_0.distcp",
    ]


def test_a_distributed_checkpoint_differing_in_one_shard_names_its_key_and_rank(
    tmp_path: Path, checkpoints: Path
) -> None:
    mode = parse_compare("tensors:ckpt")
    same = runs_of(tmp_path / "a", checkpoints, "same", "again")
    assert judge(mode, same, None) == (Verdict.REPRODUCIBLE, "")
    nudged = runs_of(tmp_path / "b", checkpoints, "same", "nudged")
    was = (torch.arange(16, dtype=torch.float32).reshape(4, 4) / 7)[3, 2]
    assert judge(mode, nudged, None) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 at rank 1: ckpt['model.layer.weight'] (its shard [2:4, 0:4])"
        f"[3, 2]: {was.item()!r} != {(was + 0.5).item()!r}; 1 of 8 elements differ, "
        "max abs diff 0.5",
    )


def test_a_checkpoint_folder_that_is_not_one(tmp_path: Path, checkpoints: Path) -> None:
    mode = parse_compare("tensors:ckpt")
    runs = runs_of(tmp_path, checkpoints, "same", "nudged")
    (runs[1].folder / "ckpt" / ".metadata").unlink()
    assert judge(mode, runs, None) == (
        Verdict.ERROR,
        "run 2: ckpt is a folder with neither a torch.distributed.checkpoint (.metadata) nor "
        ".pt files in it",
    )
    empty = tmp_path / "empty"
    runs = runs_of(empty, checkpoints, "same", "same")
    shutil.rmtree(runs[0].folder / "ckpt")
    (runs[0].folder / "ckpt").mkdir()
    assert judge(mode, runs, None) == (
        Verdict.ERROR,
        "run 1: ckpt is a folder with neither a torch.distributed.checkpoint (.metadata) nor "
        ".pt files in it",
    )


@pytest.mark.parametrize("name", ["__1_0.distcp", ".metadata"])
def test_a_shard_linked_out_of_the_checkpoint_is_an_error_not_a_read(
    tmp_path: Path, checkpoints: Path, name: str
) -> None:
    """Run 2 links a file to run 1's copy, which is equal: read, it would pass."""
    mode = parse_compare("tensors:ckpt")
    runs = runs_of(tmp_path, checkpoints, "same", "nudged")
    linked = runs[1].folder / "ckpt" / name
    linked.unlink()
    linked.symlink_to(runs[0].folder / "ckpt" / name)
    assert judge(mode, runs, None) == (
        Verdict.ERROR,
        f"run 2: ckpt/{name} leads out of ckpt (through a symlink or '..'), so it was not read",
    )


def test_a_per_rank_file_linked_out_of_the_folder_is_an_error_not_a_read(tmp_path: Path) -> None:
    outside = tmp_path / "rank_1.pt"
    torch.save({"w": torch.zeros(2)}, outside)
    runs = stdout_runs(tmp_path / "runs", "", "")
    for run in runs:
        (run.folder / "out").mkdir()
        torch.save({"w": torch.zeros(2)}, run.folder / "out" / "rank_0.pt")
        (run.folder / "out" / "rank_1.pt").symlink_to(outside)
    assert judge(parse_compare("tensors:out"), runs, None) == (
        Verdict.ERROR,
        "run 1: out/rank_1.pt leads out of out (through a symlink or '..'), so it was not read",
    )


# --- a folder of per-rank .pt files, through the command line -------------------------------

REGISTRY = """
version: 1
knobs:
  SYN_RANK1:
    default: "1"
    default_on: true
    triage: untriaged
"""

PER_RANK = """
import os
from pathlib import Path
import torch

out = Path("shards")
out.mkdir()
for rank in (0, 1):
    weight = torch.full((2, 2), float(rank))
    if rank == 1 and os.environ.get("SYN_RANK1") == "1" and Path.cwd().name == "run-2":
        weight[0, 1] = 1.5
    torch.save({"layer.weight": weight, "step": 3}, out / f"rank_{rank}.pt")
"""


@pytest.mark.slow
def test_per_rank_files_differing_in_one_shard_name_its_key_and_rank(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY, "job.py": PER_RANK})
    done = run_knobs(
        "triage", "--compare", "tensors:shards", "--jobs", "2", "--", sys.executable, "job.py",
        cwd=project,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert (
        "SYN_RANK1: run 2 differs from run 1 at rank 1: shards/rank_1.pt['layer.weight'][0, 1]: "
        "1.0 != 1.5; 1 of 4 elements differ, max abs diff 0.5\n"
    ) in done.stdout
    assert "baseline   -           reproducible        2\n" in done.stdout


# --- regex: rank by rank -----------------------------------------------------------------------


def stdout_runs(root: Path, *outputs: str) -> list[Run]:
    runs = []
    for index, text in enumerate(outputs, 1):
        folder = root / f"run-{index}"
        folder.mkdir(parents=True)
        out, err = root / f"run-{index}.stdout", root / f"run-{index}.stderr"
        out.write_text(text)
        err.write_text("")
        runs.append(Run(index=index, folder=folder, stdout=out, stderr=err, returncode=0))
    return runs


TORCHRUN = "[rank0]:step 1 loss 2.5\n[rank1]:step 1 loss 2.5\n[rank0]:step 2 loss 2.4\n"
INTERLEAVED = "[rank1]:step 1 loss 2.5\n[rank0]:step 1 loss 2.5\n[rank0]:step 2 loss 2.4\n"


def test_lines_with_a_rank_prefix_are_compared_rank_by_rank(tmp_path: Path) -> None:
    mode = parse_compare("regex:^step")  # matched against the line without its prefix
    assert judge(mode, stdout_runs(tmp_path / "a", TORCHRUN, INTERLEAVED), None) == (
        Verdict.REPRODUCIBLE,
        "",
    )
    broken = INTERLEAVED.replace("[rank0]:step 2 loss 2.4", "[rank0]:step 2 loss 2.41")
    assert judge(mode, stdout_runs(tmp_path / "b", TORCHRUN, broken), None) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 at line 3 of the output (rank 0): '[rank0]:step 2 loss 2.4' "
        "!= '[rank0]:step 2 loss 2.41'",
    )
    srun = "0: loss 1\n1: loss 1\n1: loss 2\n0: loss 3\n"
    other = "1: loss 1\n0: loss 1\n0: loss 3\n1: loss 5\n"
    assert judge(parse_compare("regex:loss"), stdout_runs(tmp_path / "c", srun, other), None) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 at line 3 of the output (rank 1): '1: loss 2' != '1: loss 5'",
    )


def test_output_without_rank_prefixes_on_every_line_is_compared_as_a_whole(
    tmp_path: Path,
) -> None:
    mode = parse_compare("regex:loss")
    mixed = "loss 1\n" + TORCHRUN
    assert judge(mode, stdout_runs(tmp_path, mixed, "loss 1\n" + INTERLEAVED), None) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 at line 2 of the output: '[rank0]:step 1 loss 2.5' != "
        "'[rank1]:step 1 loss 2.5'",
    )


def test_per_rank_files_that_differ_in_number(tmp_path: Path) -> None:
    runs = stdout_runs(tmp_path, "", "")
    for run, ranks in zip(runs, ((0, 1), (0,)), strict=True):
        (run.folder / "out").mkdir()
        for rank in ranks:
            torch.save({"w": torch.zeros(2)}, run.folder / "out" / f"rank{rank}.pt")
    assert judge(parse_compare("tensors:out"), runs, None) == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 in the files of out: missing rank1.pt",
    )


def test_a_shard_that_is_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "__0_0.distcp"
    os.mkfifo(fifo)
    with pytest.raises(FileError) as caught:
        read_range(fifo, 0, 16)
    assert caught.value.reason == "it is a named pipe, not a regular file"
