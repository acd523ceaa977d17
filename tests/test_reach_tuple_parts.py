"""A gate's value returned as one element of a tuple, unpacked by the callers and tested
there before the kernel.

Each case is a small tree on disk in the shape of the real code named above it, scanned;
the role, the polarity, the off value and the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import KERNEL, role_facts, scanned_knob

# NVIDIA/TransformerEngine, pytorch/attention/dot_product_attention/utils.py:399-1148: the
# read bound to a local that later checks of the device and the inputs set False again,
# returned first of a tuple; dot_product_attention.py:1334-1384 unpacks the tuple and tests
# the element before the flash-attention call. The local holds those checks' answers too, so
# what the function returns is not the value: not followed, and the name's word alone says
# nothing a recipe acts on.
UNPACKED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/utils.py": (
        "import logging\nimport os\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "def get_attention_backend(params):\n"
        '    use_flash_attention = int(os.getenv("X_FLASH_ATTN", "1"))\n'
        "    use_flash_attention_2 = use_flash_attention\n"
        "    if not use_flash_attention_2:\n"
        '        logger.debug("Disabling FlashAttention 2 due to X_FLASH_ATTN=0")\n'
        "    if params.cc < (8, 0):\n"
        "        use_flash_attention = False\n"
        "    return (\n"
        "        use_flash_attention,\n"
        "        None,\n"
        "    )\n"
    ),
    "pkg/dpa.py": (
        "import torch\n\nfrom pkg import utils as dpa_utils\n"
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "class DotProductAttention(torch.nn.Module):\n"
        "    def forward(self, q, params):\n"
        "        (\n"
        "            use_flash_attention,\n"
        "            flash_attention_backend,\n"
        "        ) = dpa_utils.get_attention_backend(params)\n"
        "        if use_flash_attention:\n"
        "            return fused_rms_norm(q)\n"
        "        return torch.softmax(q @ q.T, -1) @ q\n"
    ),
}

# unslothai/unsloth, unsloth/kernels/nvfp4.py:410-470,669: the read, stripped and lowered,
# returned first of a tuple; kept once in a module name by the function that returns it;
# unpacked (``mode, rows = _fused_env()``) and compared with a module tuple of off words in
# a predicate that returns False early; the predicate tested before the Triton kernel.
KEPT = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/nvfp4.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "def _read_fused_env():\n"
        '    rows = os.environ.get("X_NVFP4_FUSED_MAX_ROWS")\n'
        '    return os.environ.get("X_NVFP4_FUSED", "auto").strip().lower(), int(\n'
        "        rows\n"
        "    ) if rows else None\n\n\n"
        "_FUSED_ENV = None\n\n\n"
        "def _fused_env():\n"
        "    global _FUSED_ENV\n"
        "    if _FUSED_ENV is None:\n"
        "        _FUSED_ENV = _read_fused_env()\n"
        "    return _FUSED_ENV\n\n\n"
        '_FUSED_OFF = ("0", "false", "off", "no")\n\n\n'
        "def _fused_ok(A, inner):\n"
        "    mode, rows = _fused_env()\n"
        "    if mode in _FUSED_OFF or not A.is_cuda:\n"
        "        return False\n"
        "    return A.shape[-1] == inner\n\n\n"
        "def matmul_fwd(X, W):\n"
        "    if _fused_ok(X, W.shape[1]):\n"
        "        return fused_rms_norm(X)\n"
        "    return torch.matmul(X, W.t())\n"
    ),
}

CASES: list[tuple[str, dict[str, str], str, Role, Polarity, str | None, str]] = [
    (
        "a-local-bound-again-returned-in-a-tuple-is-not-the-value",
        UNPACKED,
        "X_FLASH_ATTN",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "the name X_FLASH_ATTN says FLASH, a hint of a kernel choice, but no code it reaches "
        "shows one: words alone are not evidence",
    ),
    (
        "a-read-returned-in-a-tuple-kept-in-a-module-name-then-unpacked",
        KEPT,
        "X_NVFP4_FUSED",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_fused_ok(X, W.shape[1])` at pkg/nvfp4.py:36, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_NVFP4_FUSED='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_tuple_part(
    tmp_path: Path,
    files: dict[str, str],
    name: str,
    role: Role,
    polarity: Polarity,
    off: str | None,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert role_facts(knob) == (role, polarity, off, reason)
