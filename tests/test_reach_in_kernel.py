"""A test inside a Triton kernel: a @triton.jit helper one side calls is the same kernel.

unslothai unsloth_zoo 2026.10.9, mxfp4_dequant.py:152-200 (the kernel: ``if BF16_BITS:``
builds bf16 bits, ``else:`` calls the ``@triton.jit`` helper ``_e2m1_to_f32``), :336-349
(``bf16_bits = dtype == torch.bfloat16 and not exact_round``) and :352-355
(``UNSLOTH_MXFP4_EXACT_ROUND``: "1" / "0" force the rounding path, unset the machine decides).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role
from tests.scanned import scanned_knob

DEQUANT = (
    "import os\n\nimport torch\nimport triton\nimport triton.language as tl\n\n"
    "_IS_HIP = torch.version.hip is not None\n\n\n"
    "@triton.jit\n"
    "def _e2m1_to_f32(nib):\n"
    "    return (nib & 7).to(tl.float32)\n\n\n"
    "@triton.jit\n"
    "def _dequant_kernel(blocks_ptr, out_ptr, BF16_BITS: tl.constexpr):\n"
    "    packed = tl.load(blocks_ptr).to(tl.int32)\n"
    "    if BF16_BITS:\n"
    "        vals = (packed << 6).to(tl.uint16).to(tl.bfloat16, bitcast=True)\n"
    "    else:\n"
    "        vals = _e2m1_to_f32(packed)\n"
    "    tl.store(out_ptr, vals)\n\n\n"
    "def _exact_round():\n"
    '    flag = os.environ.get("X_EXACT_ROUND", "")\n'
    '    return _IS_HIP if flag == "" else flag == "1"\n\n\n'
    "def dequantize(blocks, dtype):\n"
    "    out = torch.empty(blocks.shape, dtype=dtype, device=blocks.device)\n"
    "    exact_round = _exact_round()\n"
    "    bf16_bits = dtype == torch.bfloat16 and not exact_round\n"
    "    _dequant_kernel[(1,)](blocks, out, BF16_BITS=bf16_bits)\n"
    "    return out\n"
)

TREE = {"pkg/__init__.py": "", "pkg/dequant.py": DEQUANT}


@pytest.mark.parametrize(
    ("name", "files", "role"),
    [
        ("a-helper-kernel-inside-the-kernel", TREE, Role.UNKNOWN),
        (
            # the same side with an atomic add: a hazard inside the kernel still counts
            "an-atomic-inside-the-kernel",
            {
                **TREE,
                "pkg/dequant.py": DEQUANT.replace(
                    "        vals = _e2m1_to_f32(packed)\n",
                    "        vals = _e2m1_to_f32(packed)\n        tl.atomic_add(out_ptr, vals)\n",
                ),
            },
            Role.KERNEL,
        ),
    ],
)
def test_what_a_side_inside_a_kernel_reaches(
    tmp_path: Path, name: str, files: dict[str, str], role: Role
) -> None:
    knob = scanned_knob(tmp_path, files, "X_EXACT_ROUND")
    assert knob.role is role, (name, knob.role_reason)
