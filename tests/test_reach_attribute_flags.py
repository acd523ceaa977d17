"""Flags one side of a gate stores on an object, followed to the tests that read them.

Each case is a small tree on disk in the shape of the real code named above it, scanned;
the role, the polarity and the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import scanned_knob

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def _fwd_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def fused_act_quant(x):
    _fwd_kernel[(1,)](x, 1)
    return x
"""

# sgl-project/sglang, python/sglang/srt/models/qwen3_5.py:213-235 and qwen2_moe.py:209,246:
# a helper returns early on the kill switch, else marks the module it is handed
# (``mlp._enable_silu_fp4_quant_fusion = True``); the module's class declares the flag
# False in ``__init__`` and tests it in ``forward`` before the fused kernel.
HANDED_OBJECT = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/mlp.py": (
        "import torch\n\n"
        "from pkg.kernels import fused_act_quant\n\n\n"
        "class MLP(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self._enable_act_fusion = False\n\n"
        "    def forward(self, x):\n"
        "        if self._enable_act_fusion and not isinstance(x, tuple):\n"
        "            return fused_act_quant(x)\n"
        "        return torch.nn.functional.silu(x)\n"
    ),
    "pkg/model.py": (
        "import os\n\n\n"
        "def _maybe_enable_act_fusion(mlp):\n"
        '    if os.environ.get("X_DISABLE_ACT_FUSION", "0") == "1":\n'
        "        return\n"
        "    if not mlp.supported:\n"
        "        return\n"
        "    mlp._enable_act_fusion = True\n"
    ),
}

# vllm-project/vllm, vllm/distributed/device_communicators/symm_mem.py:113-118: a flag
# set on one side of the knob's test in ``__init__``, tested in another method.
SELF_FLAG = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/comm.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import fused_act_quant\n\n\n"
        "class Comm:\n"
        "    def __init__(self):\n"
        "        self.disabled = False\n"
        '        if os.environ.get("X_DISABLE_FUSED_AR", "0") == "1":\n'
        "            self.disabled = True\n\n"
        "    def all_reduce(self, x):\n"
        "        if self.disabled:\n"
        "            return torch.distributed.all_reduce(x)\n"
        "        return fused_act_quant(x)\n"
    ),
}

# The same shapes, where the flag's name is declared by too many classes to say which
# object was meant: no evidence.
COMMON = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    **{
        f"pkg/m{n}.py": (
            "import torch\n\n"
            "from pkg.kernels import fused_act_quant\n\n\n"
            f"class M{n}:\n"
            "    def __init__(self):\n"
            "        self.enabled = False\n\n"
            "    def forward(self, x):\n"
            "        if self.enabled:\n"
            "            return fused_act_quant(x)\n"
            "        return x\n"
        )
        for n in range(4)
    },
    "pkg/model.py": (
        "import os\n\n\n"
        "def _maybe_enable(mlp):\n"
        '    if os.environ.get("X_DISABLE_COMMON", "0") == "1":\n'
        "        return\n"
        "    mlp.enabled = True\n"
    ),
}

CASES = [
    (
        "a-flag-stored-on-a-handed-object",
        HANDED_OBJECT,
        "X_DISABLE_ACT_FUSION",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `self._enable_act_fusion and (not isinstance(x, tuple))` "
        "at pkg/mlp.py:12, which reaches calls fused_act_quant (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_DISABLE_ACT_FUSION='1' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        "a-flag-set-in-init-tested-in-a-method",
        SELF_FLAG,
        "X_DISABLE_FUSED_AR",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `not self.disabled` at pkg/comm.py:15, which reaches "
        "calls fused_act_quant (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_DISABLE_FUSED_AR='1' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-flag-name-too-common-to-follow",
        COMMON,
        "X_DISABLE_COMMON",
        Role.UNKNOWN,
        Polarity.DISABLE,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_flags_stored_on_objects(
    tmp_path: Path,
    files: dict[str, str],
    name: str,
    role: Role,
    polarity: Polarity,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert (knob.role, knob.polarity, knob.role_reason) == (role, polarity, reason)
