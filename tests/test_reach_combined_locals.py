"""A gate's value flows into a local that is combined with others into another local's
boolean value, which is tested before the kernel.

Each case is a small tree on disk in the shape of the real code named above it, scanned;
the role, the polarity and the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def _norm_rope_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def fused_qk_norm_rope(x):
    _norm_rope_kernel[(1,)](x, 1)
    return x
"""

# sgl-project/sglang, python/sglang/srt/models/deepseek_v4.py:2268-2305: ``fuse_verify =
# envs.X.get() and is_target_verify()``, then ``do_fused_qk_norm_rope = (unified and
# (is_decode or fuse_verify or fuse_prefill)) or (not unified and self.use_fused_...)``,
# then ``if do_fused_qk_norm_rope:`` before the fused norm+RoPE kernels.
COMBINED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/layer.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_qk_norm_rope\n\n\n"
        "class Layer:\n"
        "    def __init__(self):\n"
        "        self.use_fused = False\n\n"
        "    def prepare(self, q, unified, mode):\n"
        '        is_decode = mode == "decode"\n'
        '        fuse_verify = os.environ.get("X_FUSED_VERIFY", "1") != "0" and mode == "verify"\n'
        '        fuse_prefill = unified and mode == "prefill"\n'
        "        do_fused = (unified and (is_decode or fuse_verify or fuse_prefill)) or (\n"
        "            not unified and self.use_fused\n"
        "        )\n"
        "        if do_fused:\n"
        "            return fused_qk_norm_rope(q)\n"
        "        return torch.nn.functional.rms_norm(q, q.shape[-1:])\n"
    ),
}

# The same value combined through ``not`` and ``bool()`` into a local tested later.
NEGATED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/layer.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_qk_norm_rope\n\n\n"
        "def prepare(q, eager):\n"
        '    unfused = os.environ.get("X_UNFUSED", "0") == "1"\n'
        "    fused = bool(not unfused and not eager)\n"
        "    if fused:\n"
        "        return fused_qk_norm_rope(q)\n"
        "    return torch.nn.functional.rms_norm(q, q.shape[-1:])\n"
    ),
}

CASES: list[tuple[str, dict[str, str], str, Role, Polarity, str | None, str]] = [
    (
        "a-local-combined-into-another-local-tested-before-the-kernel",
        COMBINED,
        "X_FUSED_VERIFY",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `do_fused` at pkg/layer.py:19, which reaches calls "
        "fused_qk_norm_rope (pkg/kernels.py:10) -> calls _norm_rope_kernel (pkg/kernels.py:6) "
        "-> @triton.jit _norm_rope_kernel at pkg/kernels.py:6; X_FUSED_VERIFY='0' leaves "
        "that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-local-negated-into-another-local",
        NEGATED,
        "X_UNFUSED",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `fused` at pkg/layer.py:11, which reaches calls "
        "fused_qk_norm_rope (pkg/kernels.py:10) -> calls _norm_rope_kernel (pkg/kernels.py:6) "
        "-> @triton.jit _norm_rope_kernel at pkg/kernels.py:6; X_UNFUSED='1' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_combined_local(
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
