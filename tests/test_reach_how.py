"""A kernel choice whose name says what is computed (FP8, INT4, ...), and the code that
shows its values choose how it is computed (scanner.reach.how): a hazard whose result
changes from run to run that only the side the value leaves reaches, or one operation
computed two ways. Each case is a small tree in the shape of the real code it stands for
(named above it), scanned; the role, polarity, off value and whole reason are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

# A plain Triton kernel (no atomics, no autotuning) and one that adds its parts atomically.
KERNELS = """\
import triton
import triton.language as tl


@triton.jit
def _plain_kernel(x_ptr, n):
    tl.store(x_ptr, n)


@triton.jit
def _split_kernel(x_ptr, n):
    tl.atomic_add(x_ptr, n)


def plain_linear(x, w, s):
    _plain_kernel[(1,)](x, 1)
    return x


def small_m_linear(x, w, s):
    _split_kernel[(1,)](x, 1)
    return x
"""

# unslothai/unsloth, unsloth/kernels/fp8.py:846 (the read), :871-876 (the predicate) and
# :1856 (the dispatch): unset, a small-M kernel that adds split-K parts with
# tl.atomic_add (:838); "0", the generic block kernel.
SMALL_M = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNELS,
    "pkg/fp8.py": (
        "import os\n\nfrom pkg.kernels import plain_linear, small_m_linear\n\n"
        '_SMALL_M = os.environ.get("X_FP8_SMALL_M", "1") != "0"\n\n\n'
        "def can_use_small_m(x):\n"
        "    if not _SMALL_M:\n"
        "        return False\n"
        "    return x.shape[0] <= 16\n\n\n"
        "def block_linear(x, w, s):\n"
        "    if can_use_small_m(x):\n"
        "        return small_m_linear(x, w, s)\n"
        "    return plain_linear(x, w, s)\n"
    ),
}

# unslothai/unsloth_zoo, temporary_patches/gpt_oss_grouped_qlora.py:672 (the test) and
# moe_utils.py:2277-2313 (tokens counted per expert with .scatter_add_()): "0" declines
# the grouped path, and the caller runs its own loop (no kernel of its own).
DECLINE = {
    "pkg/__init__.py": "",
    "pkg/grouped.py": (
        "import os\n\nimport torch\n\n\n"
        "def grouped_available(device):\n"
        '    return os.environ.get("X_GROUPED_FP16", "1") != "0"\n\n\n'
        "def _decline(reason):\n"
        "    return None\n\n\n"
        "def count_tokens(experts, n):\n"
        "    counts = torch.zeros(n)\n"
        "    counts.scatter_add_(0, experts, torch.ones_like(experts))\n"
        "    return counts\n\n\n"
        "def forward(x, experts, n):\n"
        "    if not grouped_available(x.device):\n"
        '        return _decline("off")\n'
        "    return count_tokens(experts, n)\n"
    ),
}

# unslothai/unsloth, unsloth/kernels/utils.py:1762-1765: each side binds `out` to a call
# on (X, W, W_quant): the row-wise GEMV Triton kernel (fp8.py:1146) or the dequantize path.
SAME_CALL = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNELS,
    "pkg/fp8.py": (
        "import os\n\n"
        '_GEMV_ROWS = os.environ.get("X_FP8_GEMV_ROWS", "1") not in ("0", "false")\n\n\n'
        "def can_use_gemv(X, W, W_quant):\n"
        "    return _GEMV_ROWS and X.shape[0] <= 16\n"
    ),
    "pkg/utils.py": (
        "import torch\n\nfrom pkg.fp8 import can_use_gemv\n"
        "from pkg.kernels import plain_linear\n\n\n"
        "def dequant_linear(X, W, W_quant):\n"
        "    return torch.matmul(X, (W * W_quant).t())\n\n\n"
        "def matmul_lora(X, W, W_quant):\n"
        "    if can_use_gemv(X, W, W_quant):\n"
        "        out = plain_linear(X, W, W_quant)\n"
        "    else:\n"
        "        out = dequant_linear(X, W, W_quant)\n"
        "    return out\n"
    ),
}

CASES = [
    (
        "only-unset-adds-atomically",
        SMALL_M,
        "X_FP8_SMALL_M",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own, and only unset reaches atomics: calls "
        "small_m_linear (pkg/kernels.py:20) -> calls _split_kernel (pkg/kernels.py:11) -> "
        "triton.language.atomic_add at pkg/kernels.py:12; X_FP8_SMALL_M='0', calls "
        "plain_linear (pkg/kernels.py:15) -> calls _plain_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _plain_kernel at pkg/kernels.py:6, and all it alone reaches is Triton "
        "code with no hazard; the name says FP8, what is computed, but only unset reaches "
        "atomics, which a bitwise run must leave: the value chooses how it is computed, "
        "not what",
    ),
    (
        # unset reaches atomics, and "0" leaves every kernel: what runs in their place may
        # compute another thing (unsloth's UNSLOTH_COMPRESSED_TENSORS_INT4=0 re-quantizes the
        # checkpoint to NF4, models/compressed_tensors_int4.py:19-20, :44-47)
        # A kill switch (scanner.roles._kill_switch); where the same test lies in a
        # quantizer's weight-loading code, the code says unknown (tests/test_roles_code.py
        # a-precision-switch-in-a-quantizer-s-weight-loading-*).
        "a-hazard-left-for-no-kernel-by-a-kill-switch",
        DECLINE,
        "X_GROUPED_FP16",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `grouped_available(x.device)` at pkg/grouped.py:21, "
        "which reaches calls count_tokens (pkg/grouped.py:14) -> .scatter_add_() at "
        "pkg/grouped.py:16; X_GROUPED_FP16='0' leaves that branch, and what runs instead "
        "reaches no such kernel; the name says FP16, what is computed, but '0' is an off "
        "value of its own tests, and it turns the kernel off (a kill switch): the value "
        "chooses how it is computed, not what",
    ),
    (
        "one-operation-two-ways",
        SAME_CALL,
        "X_FP8_GEMV_ROWS",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `can_use_gemv(X, W, W_quant)` at pkg/utils.py:12, "
        "which reaches calls plain_linear (pkg/kernels.py:15) -> calls _plain_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _plain_kernel at pkg/kernels.py:6; "
        "X_FP8_GEMV_ROWS='0' leaves that branch, and what runs instead reaches no such "
        "kernel; the name says FP8, what is computed, but at pkg/utils.py:12 each side "
        "binds out to a call on the same arguments (plain_linear(X, W, W_quant) / "
        "dequant_linear(X, W, W_quant)): the value chooses how it is computed, not what",
    ),
    (
        "a-hazard-does-not-outweigh-what-is-trained",
        {**SMALL_M, "pkg/fp8.py": SMALL_M["pkg/fp8.py"].replace("X_FP8_", "X_LORA_")},
        "X_LORA_SMALL_M",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own, and only unset reaches atomics: calls "
        "small_m_linear (pkg/kernels.py:20) -> calls _split_kernel (pkg/kernels.py:11) -> "
        "triton.language.atomic_add at pkg/kernels.py:12; X_LORA_SMALL_M='0', calls "
        "plain_linear (pkg/kernels.py:15) -> calls _plain_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _plain_kernel at pkg/kernels.py:6, and all it alone reaches is Triton "
        "code with no hazard; but the name says LORA, what is computed, so the other value "
        "may change the result itself: a person must say",
    ),
    (
        "other-arguments-are-another-operation",
        {
            **SAME_CALL,
            "pkg/utils.py": SAME_CALL["pkg/utils.py"].replace(
                "out = dequant_linear(X, W, W_quant)", "out = dequant_linear(X, W, None)"
            ),
        },
        "X_FP8_GEMV_ROWS",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        # not one operation computed two ways (the reason says so), but a kill switch
        "unset, it runs the branch of `can_use_gemv(X, W, W_quant)` at pkg/utils.py:12, "
        "which reaches calls plain_linear (pkg/kernels.py:15) -> calls _plain_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _plain_kernel at pkg/kernels.py:6; "
        "X_FP8_GEMV_ROWS='0' leaves that branch, and what runs instead reaches no such "
        "kernel; the name says FP8, what is computed, but '0' is an off value of its own "
        "tests, and it turns the kernel off (a kill switch): the value chooses how it is "
        "computed, not what",
    ),
]


# vllm-project/vllm, vllm/v1/sample/ops/topk_topp_sampler.py:176-180 (the switch read in a
# predicate), :262-263 (`if xpu_sampler_supported() and not envs.VLLM_BATCH_INVARIANT:`
# binds the fused custom op, else the native sampler) and
# vllm/model_executor/determinism/batch_invariant.py:1435 (the batch-invariant mode).
MODE_SIDE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNELS,
    "pkg/envs.py": (
        'import os\n\nX_BATCH_INVARIANT = os.environ.get("X_BATCH_INVARIANT", "0") == "1"\n'
    ),
    "pkg/invariant.py": (
        "import torch\n\nfrom pkg import envs\n\n\n"
        "def init_batch_invariance():\n"
        "    if envs.X_BATCH_INVARIANT:\n"
        "        torch.use_deterministic_algorithms(True)\n"
    ),
    "pkg/sampler.py": (
        "import os\n\nimport torch\n\nfrom pkg import envs\n"
        "from pkg.kernels import plain_linear\n\n\n"
        "def sampler_supported():\n"
        '    if os.environ.get("X_USE_SAMPLER_KERNEL", "1") == "0":\n'
        "        return False\n"
        "    return True\n\n\n"
        "def fused_sample(logits):\n"
        "    return torch.ops.pkg.fused_sampler(logits)\n\n\n"
        "def native_sample(logits):\n"
        "    return plain_linear(logits, None, None)\n\n\n"
        "class Sampler:\n"
        "    def __init__(self):\n"
        "        if sampler_supported() and not envs.X_BATCH_INVARIANT:\n"
        "            self.forward = fused_sample\n"
        "        else:\n"
        "            self.forward = native_sample\n"
    ),
}

MODES = [
    (
        "the-side-the-deterministic-mode-takes",
        MODE_SIDE,
        "X_USE_SAMPLER_KERNEL",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls fused_sample "
        "(pkg/sampler.py:15) -> torch.ops.pkg.fused_sampler at pkg/sampler.py:16; "
        "X_USE_SAMPLER_KERNEL='0', calls native_sample (pkg/sampler.py:19) -> calls "
        "plain_linear (pkg/kernels.py:15) -> calls _plain_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _plain_kernel at pkg/kernels.py:6; the deterministic mode "
        "X_BATCH_INVARIANT='1' leaves the branch of `sampler_supported() and (not "
        "envs.X_BATCH_INVARIANT)` at pkg/sampler.py:25 too: X_USE_SAMPLER_KERNEL='0' takes "
        "the side the framework takes when asked to be deterministic",
    ),
    (
        "a-test-no-deterministic-mode-reads",
        {
            **MODE_SIDE,
            "pkg/invariant.py": MODE_SIDE["pkg/invariant.py"].replace(
                "torch.use_deterministic_algorithms(True)", "print('invariant')"
            ),
        },
        "X_USE_SAMPLER_KERNEL",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls fused_sample "
        "(pkg/sampler.py:15) -> torch.ops.pkg.fused_sampler at pkg/sampler.py:16; "
        "X_USE_SAMPLER_KERNEL='0', calls native_sample (pkg/sampler.py:19) -> calls "
        "plain_linear (pkg/kernels.py:15) -> calls _plain_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _plain_kernel at pkg/kernels.py:6",
    ),
]


# sgl-project/sglang, python/sglang/srt/models/muse_spark.py:1003-1007 (the switch hands the
# MoE a fused norm boundary), :625-629 (the setter stores it), :614 (its class set None
# before) and :742 (the MoE reads it): "0" leaves None in its place.
SETTER = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNELS,
    "pkg/model.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import plain_linear\n\n\n"
        "class FusedNorm(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return plain_linear(x, None, None)\n\n\n"
        "class MoE(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.gather_boundary = None\n\n"
        "    def set_gather_boundary(self, boundary):\n"
        '        """Bind the boundary that can absorb the all-gather."""\n'
        "        self.gather_boundary = boundary\n\n"
        "    def forward(self, x):\n"
        "        boundary = self.gather_boundary\n"
        "        if boundary is not None:\n"
        "            return boundary(x)\n"
        "        return torch.nn.functional.rms_norm(x, x.shape[-1:])\n\n\n"
        "class Layer(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.mlp = MoE()\n\n"
        "    def bind_next_norm(self):\n"
        '        if os.environ.get("X_AG_NORM_FUSION", "1") != "0":\n'
        "            self.mlp.set_gather_boundary(FusedNorm())\n"
    ),
}

SETTERS = [
    (
        "a-setter-leaves-the-earlier-value",
        SETTER,
        "X_AG_NORM_FUSION",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_AG_NORM_FUSION', '1') != '0'` at "
        "pkg/model.py:35, which reaches calls FusedNorm (pkg/model.py:8) -> calls "
        "FusedNorm.forward (pkg/model.py:9) -> calls plain_linear (pkg/kernels.py:15) -> "
        "calls _plain_kernel (pkg/kernels.py:6) -> @triton.jit _plain_kernel at "
        "pkg/kernels.py:6; X_AG_NORM_FUSION='0' leaves that branch, and what runs instead "
        "reaches no such kernel",
    ),
    (
        "a-setter-of-a-value-never-set-before",
        {
            **SETTER,
            "pkg/model.py": SETTER["pkg/model.py"].replace(
                "        self.gather_boundary = None\n", "        self.other = None\n"
            ),
        },
        "X_AG_NORM_FUSION",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_AG_NORM_FUSION', '1') != '0'` at "
        "pkg/model.py:35, which reaches calls FusedNorm (pkg/model.py:8) -> calls "
        "FusedNorm.forward (pkg/model.py:9) -> calls plain_linear (pkg/kernels.py:15) -> "
        "calls _plain_kernel (pkg/kernels.py:6) -> @triton.jit _plain_kernel at "
        "pkg/kernels.py:6; X_AG_NORM_FUSION='0' skips that branch and runs nothing in its "
        "place, so the work it does may be left undone: a person must say",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in (*CASES, *MODES, *SETTERS)],
    ids=[c[0] for c in (*CASES, *MODES, *SETTERS)],
)
def test_role_from_how_the_sides_differ(
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
