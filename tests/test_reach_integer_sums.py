"""An atomic accumulation of integers is exact in any order: no atomic mark
(scanner.reach.integer_sums); one of floats, or of a dtype the call does not show, keeps it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner.reach.marks import MarkKind, node_marks
from scanner.reach.modules import Module, Tree
from tests.conftest import write_tree

# unslothai/unsloth (unsloth_zoo) temporary_patches/moe_routing_triton.py:168-176 (int32
# counts, ones of the same dtype), sglang srt/layers/moe/moe_runner/deep_gemm_sm120.py:152
# (a mask cast with .to(torch.int32)), lmdeploy pytorch/kernels/cuda/moe/
# v4_fp4_grouped_gemm.py:43 (int64 ones), vllm model_executor/layers/fused_moe/experts/
# gpt_oss_triton_kernels_moe.py:768 (float32 rows added by index: the order matters).
SOURCE = (
    "import torch\n\n\n"
    "def counted(index, n):\n"
    "    counts = torch.zeros(n, dtype=torch.int32, device=index.device)\n"
    "    counts.scatter_add_(0, index, torch.ones_like(index, dtype=torch.int32))\n"
    "    return counts\n\n\n"
    "def masked(ids, n):\n"
    "    counts = torch.zeros(n, dtype=torch.int32)\n"
    "    counts.index_add_(0, ids.clamp_min(0), (ids >= 0).to(torch.int32))\n"
    "    return counts\n\n\n"
    "def by_receiver(ids, n, ones):\n"
    "    counts = torch.zeros(n, dtype=torch.int64)\n"
    "    counts.scatter_add_(0, ids, ones)\n"
    "    return counts\n\n\n"
    "def summed(acc, tok, y):\n"
    "    acc.index_add_(0, tok.to(torch.int64), y.to(torch.float32))\n"
    "    return acc\n\n\n"
    "def unknown_dtype(n, ids, dtype):\n"
    "    counts = torch.zeros(n, dtype=dtype)\n"
    "    counts.scatter_add_(0, ids, torch.ones_like(ids, dtype=dtype))\n"
    "    return counts\n"
)


def _module(tmp_path: Path) -> Module:
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": SOURCE})
    module = Tree({"pkg/mod.py": (tmp_path / "pkg/mod.py", "pkg.mod")}).module_named("pkg.mod")
    assert module is not None
    return module


@pytest.mark.parametrize(
    ("function", "atomic"),
    [
        ("counted", False),
        ("masked", False),
        ("by_receiver", False),
        ("summed", True),
        ("unknown_dtype", True),
    ],
)
def test_an_integer_accumulation_is_no_atomic(tmp_path: Path, function: str, atomic: bool) -> None:
    module = _module(tmp_path)
    scope = next(
        n for n in ast.walk(module.tree) if isinstance(n, ast.FunctionDef) and n.name == function
    )
    kinds = [m.kind for n in ast.walk(scope) for m in node_marks(module, n)]
    assert (MarkKind.ATOMIC in kinds) is atomic
