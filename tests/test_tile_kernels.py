"""cuTile kernels (``@ct.kernel``, run by ``ct.launch``) are code the tree shows, like Triton's:
where only one side of a switch autotunes them, the other side is the one a bitwise run takes,
unless its own cuTile kernel has atomics (``ct.atomic_add``).

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the role, polarity, off value and evidence are
checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

# flashinfer-python 0.7.2, flashinfer/gemm/kernels/cutile/masked_bmm_cutile.py:15 (the read),
# :294-353 (_masked_bmm_autotune: exhaustive_search over configs, then ct.launch of the best),
# :422-486 (`enable_autotune = not _AUTOTUNE_DISABLED`; otherwise one default config launched).
BMM = (
    "import os\n\n"
    "import cuda.tile as ct\n"
    "import torch\n"
    "from cuda.tile.tune import exhaustive_search\n\n"
    '_AUTOTUNE_DISABLED = os.getenv("X_TILE_AUTOTUNE_DISABLED", "0") == "1"\n'
    "_cache = {}\n\n\n"
    "@ct.kernel\n"
    "def _bmm_kernel(a, c, BLOCK: ct.Constant[int]):\n"
    "    {body}\n\n\n"
    "def _bmm_autotune(stream, a, c):\n"
    "    if a.shape not in _cache:\n"
    "        found = exhaustive_search([16, 32], stream, _grid, _bmm_kernel, _args)\n"
    "        _cache[a.shape] = found.best\n"
    "    ct.launch(stream, (1,), _bmm_kernel, (a, c, _cache[a.shape]))\n\n\n"
    "def bmm(a):\n"
    "    c = torch.empty_like(a)\n"
    "    enable_autotune = not _AUTOTUNE_DISABLED\n"
    "    if enable_autotune:\n"
    "        _bmm_autotune(torch.cuda.current_stream(), a, c)\n"
    "    else:\n"
    "        ct.launch(torch.cuda.current_stream(), (1,), _default_kernel, (a, c, 16))\n"
    "    return c\n\n\n"
    "@ct.kernel\n"
    "def _default_kernel(a, c, BLOCK: ct.Constant[int]):\n"
    "    {default}\n"
)
STORE = "ct.store(c, 0, ct.load(a, 0, BLOCK))"
# Liger-Kernel 0.8.5, ops/cutile/ops/poly_norm.py:242: a cuTile kernel that adds atomically.
ATOMIC = "ct.atomic_add(c, 0, ct.load(a, 0, BLOCK))"


def _tree(default: str) -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/bmm.py": BMM.replace("{body}", STORE).replace("{default}", default),
    }


CASES = [
    (
        "only-the-unset-side-autotunes-a-cutile-kernel",
        _tree(STORE),
        Role.KERNEL,
        "each value reaches a kernel of its own, and only unset reaches autotuning: calls "
        "_bmm_autotune (pkg/bmm.py:16) -> cuda.tile.tune.exhaustive_search at pkg/bmm.py:18; "
        "X_TILE_AUTOTUNE_DISABLED='1', cuda.tile.launch at pkg/bmm.py:29, and all it alone "
        "reaches is cuTile code with no hazard",
    ),
    (
        "the-untuned-side-s-own-cutile-kernel-adds-atomically",
        _tree(ATOMIC),
        Role.UNKNOWN,
        # the atomic adds of the kernel '1' launches (pkg/bmm.py:33) leave nothing safe
        "each value reaches a kernel of its own: unset, calls _bmm_autotune (pkg/bmm.py:16) -> "
        "cuda.tile.launch at pkg/bmm.py:20; X_TILE_AUTOTUNE_DISABLED='1', cuda.tile.launch at "
        "pkg/bmm.py:29",
    ),
]


@pytest.mark.parametrize(
    ("files", "role", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_cutile_autotune_switch(
    tmp_path: Path, files: dict[str, str], role: Role, reason: str
) -> None:
    knob = scanned_knob(tmp_path, files, "X_TILE_AUTOTUNE_DISABLED")
    assert role_facts(knob) == (role, Polarity.DISABLE, "0", reason)
