"""A kernel only a machine without a GPU runs (an NPU's, the CPU's) does not decide which
side of a GPU run's gate is the kernel side (scanner.reach.platforms).

Each case is a small tree in the shape of the real code it stands for (named above it),
scanned; the role, polarity, off value and the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

# sglang python/sglang/kernels/ops/attention/dsv4/norm_rope.py:142-164: a Triton kernel on
# ROCm, a module of the tree's own CUDA sources otherwise: a kernel on some paths.
KERNEL = """\
import torch
import triton
import triton.language as tl

from pkg.loader import load_module

_is_hip = torch.version.hip is not None


@triton.jit
def _fwd_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def fused_rope(x):
    if _is_hip:
        _fwd_kernel[(1,)](x, 1)
        return x
    return load_module("rope").forward(x)
"""
LOADER = "def load_module(name):\n    return __import__(name)\n"

# sgl-project/sglang python/sglang/srt/models/deepseek_v4_dspark.py:138,214-249: the switch
# kept in __init__; its on side runs the fused kernel, its off side an Ascend operator behind
# `if _is_npu:` and torch's ops otherwise.
FAST_KERNEL = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/loader.py": LOADER,
    "pkg/attn.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import fused_rope\n\n"
        "_is_npu = hasattr(torch, 'npu')\n\n\n"
        "class Attention:\n"
        "    def __init__(self):\n"
        '        self._use_fast_kernel = os.environ.get("X_FAST_KERNEL", "1") != "0"\n\n'
        "    def compute_q(self, q, w):\n"
        "        if self._use_fast_kernel:\n"
        "            return fused_rope(q)\n"
        "        else:\n"
        "            if _is_npu:\n"
        "                import torch_npu\n\n"
        "                q = torch_npu.npu_rms_norm(q, w, 1e-6)[0]\n"
        "            else:\n"
        "                q = q * torch.rsqrt(q.square().mean(-1, keepdim=True))\n"
        "            return q\n"
    ),
}

# sglang python/sglang/srt/models/inkling_common/attn.py:848-883 and srt/models/utils.py:478-509:
# the unfused side normalizes through a helper whose CPU build calls a `*_cpu` custom op
# behind `_is_cpu and _is_cpu_amx_available`; a GPU runs torch's ops there.
CPU_OP = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/loader.py": LOADER,
    "pkg/utils.py": (
        "import torch\n\n"
        "_is_cpu = not torch.cuda.is_available()\n"
        "_is_cpu_amx_available = _is_cpu\n\n\n"
        "def apply_qk_norm(q, k, w):\n"
        "    if _is_cpu and _is_cpu_amx_available:\n"
        "        torch.ops.sgl_kernel.fused_qk_norm_cpu(q, k, w)\n"
        "        return q, k\n"
        "    return torch.nn.functional.rms_norm(q, w.shape), k\n"
    ),
    "pkg/attn.py": (
        "import os\n\n"
        "from pkg.kernels import fused_rope\n"
        "from pkg.utils import apply_qk_norm\n\n\n"
        "def forward(q, k, w):\n"
        '    fused = os.environ.get("X_FUSED_PROLOGUE", "1") != "0"\n'
        "    if fused:\n"
        "        q = fused_rope(q)\n"
        "    if not fused:\n"
        "        q, k = apply_qk_norm(q, k, w)\n"
        "    return q, k\n"
    ),
}

# sglang python/sglang/srt/layers/activation.py:255-263: a switch of the NPU's own code (its
# CustomOp's forward_npu): unset runs Ascend's fused operator, "1" the native path. Inert on a
# GPU, right on an NPU: still a kernel switch.
NPU_SWITCH = {
    "pkg/__init__.py": "",
    "pkg/activation.py": (
        "import os\n\n"
        "import torch_npu\n\n\n"
        "class GeluAndMul:\n"
        "    def forward_native(self, x):\n"
        "        return x * 0.5\n\n"
        "    def forward_npu(self, x):\n"
        '        if os.environ.get("X_NPU_NATIVE_GELU", "0") != "1":\n'
        "            return torch_npu.npu_geglu(x)[0]\n"
        "        return self.forward_native(x)\n"
    ),
}

# sglang python/sglang/srt/models/deepseek_v4.py:1533-1542,2964-2990 (before the reach saw the
# fused side's JIT module): the fused side calls code the reach does not see as a kernel; the
# other side runs an Ascend operator behind a test of the machine.
UNSEEN_FUSED = {
    "pkg/__init__.py": "",
    "pkg/ext.py": "def fused_wo_a(x, w):\n    return _module().run(x, w)\n",
    "pkg/layer.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.ext import fused_wo_a\n\n"
        "_is_npu = hasattr(torch, 'npu')\n\n\n"
        "class Layer:\n"
        "    def __init__(self):\n"
        '        self.use_fused_wo_a = os.environ.get("X_FUSED_WO_A", "1") != "0"\n\n'
        "    def forward(self, o, w):\n"
        "        if self.use_fused_wo_a:\n"
        "            return fused_wo_a(o, w)\n"
        "        elif _is_npu:\n"
        "            import torch_npu\n\n"
        "            return torch_npu.npu_transpose_quant_batchmatmul(o, w)\n"
        "        return torch.einsum('bgd,grd->bgr', o, w)\n"
    ),
}

# sglang 0.5.23 srt/hardware_backend/npu/modules/deepseek_v2_attention_mla_npu.py:175-198 and
# srt/hardware_backend/npu/attention/mla_preprocess.py:21-22, :70, :520, :688-707, reduced:
# "1" builds the NPU's fused MLA preprocess on the model's attention and runs it; unset runs
# the model's rotary embedding, a GPU kernel. "1" is no plain path: the NPU's operator on it.
NPU_IN_PLACE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/loader.py": LOADER,
    "pkg/mla_preprocess.py": (
        "import os\n\nimport torch\n\n\n"
        "def is_mla_preprocess_enabled():\n"
        '    return os.environ.get("X_NPU_USE_MLAPO", "0") == "1"\n\n\n'
        "class NPUFusedMLAPreprocess(torch.nn.Module):\n"
        "    def forward(self, positions, hidden_states):\n"
        "        return self.forward_mlapo(positions, hidden_states)\n\n"
        "    def forward_mlapo(self, positions, hidden_states):\n"
        "        torch.ops.npu.mla_preprocess(hidden_states, positions)\n"
        "        return hidden_states\n"
    ),
    "pkg/attn.py": (
        "from pkg.kernels import fused_rope\n"
        "from pkg.mla_preprocess import NPUFusedMLAPreprocess, is_mla_preprocess_enabled\n\n\n"
        "class Attention:\n"
        "    def rotary_emb(self, positions, q):\n"
        "        return fused_rope(q)\n\n\n"
        'def forward_mla_prepare_npu(m: "Attention", positions, hidden_states):\n'
        "    if is_mla_preprocess_enabled():\n"
        '        if not hasattr(m, "mla_preprocess"):\n'
        "            m.mla_preprocess = NPUFusedMLAPreprocess()\n"
        "        return m.mla_preprocess.forward(positions, hidden_states)\n"
        "    return m.rotary_emb(positions, hidden_states)\n"
    ),
}

# vllm-project/vllm-ascend 182b75e vllm_ascend/distributed/kv_transfer/kv_p2p/
# mooncake_connector.py:1120-1339, reduced: unset runs the plugin's own fused op (a custom op
# whose machine the code does not say), "0" Ascend's gather operator: the plugin's plain path.
NPU_PLUGIN = {
    "pkg/__init__.py": "",
    "pkg/connector.py": (
        "import os\n\nimport torch\nimport torch_npu\n\n\n"
        "def reformat_kv_cache_with_fused_op(cache):\n"
        "    torch.ops._C_ascend.transpose_kv_cache_by_block(cache)\n\n\n"
        "def receive(cache):\n"
        '    if os.environ.get("X_FUSION_OP_TRANSPOSE_KV_CACHE_BY_BLOCK", "1") == "1":\n'
        "        reformat_kv_cache_with_fused_op(cache)\n"
        "    else:\n"
        "        torch_npu.npu_gather_pa_kv_cache(cache)\n"
    ),
}

_CHAIN = (
    "calls fused_rope (pkg/kernels.py:15) -> calls _fwd_kernel (pkg/kernels.py:11) -> "
    "@triton.jit _fwd_kernel at pkg/kernels.py:11"
)
_PLUGIN_REASON = (
    "unset, it runs the branch of "
    "`os.environ.get('X_FUSION_OP_TRANSPOSE_KV_CACHE_BY_BLOCK',...` at pkg/connector.py:12, "
    "which reaches calls reformat_kv_cache_with_fused_op (pkg/connector.py:7) -> "
    "torch.ops._C_ascend.transpose_kv_cache_by_block at pkg/connector.py:8; "
    "X_FUSION_OP_TRANSPOSE_KV_CACHE_BY_BLOCK='0' leaves that branch, and what runs instead "
    "reaches no such kernel"
)
CASES: list[tuple[str, dict[str, str], str, Role, Polarity, str | None, str]] = [
    (
        "an-npu-operator-on-the-off-side-is-no-kernel-of-a-gpu-run",
        FAST_KERNEL,
        "X_FAST_KERNEL",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `self._use_fast_kernel` at pkg/attn.py:15, which "
        f"reaches {_CHAIN}; X_FAST_KERNEL='0' leaves that branch, and what runs instead "
        "reaches no such kernel",
    ),
    (
        "a-cpu-op-on-the-off-side-is-no-kernel-of-a-gpu-run",
        CPU_OP,
        "X_FUSED_PROLOGUE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `fused` at pkg/attn.py:9, which reaches "
        f"{_CHAIN}; X_FUSED_PROLOGUE='0' leaves that branch, and what runs instead reaches "
        "no such kernel",
    ),
    (
        "a-switch-of-the-npus-own-code-stays-a-kernel-switch",
        NPU_SWITCH,
        "X_NPU_NATIVE_GELU",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_NPU_NATIVE_GELU', '0') != '1'` at "
        "pkg/activation.py:11, which reaches torch_npu (Ascend fused operators) "
        "(torch_npu.npu_geglu) at pkg/activation.py:12; X_NPU_NATIVE_GELU='1' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "an-npu-operator-alone-does-not-make-the-unfused-side-the-kernel-side",
        UNSEEN_FUSED,
        "X_FUSED_WO_A",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "X_FUSED_WO_A='0' runs the branch of `not self.use_fused_wo_a` at pkg/layer.py:15, "
        "which reaches torch_npu (Ascend fused operators) "
        "(torch_npu.npu_transpose_quant_batchmatmul) at pkg/layer.py:20; unset, it does not; "
        "but only a machine without a GPU (an NPU, the CPU) runs that kernel, and unset runs "
        "code whose kernels, if any, are not seen: on a GPU the code does not say which side "
        "is the kernel, a person must say",
    ),
    (
        "an-npu-operator-in-the-kernels-place-is-no-plain-path",
        NPU_IN_PLACE,
        "X_NPU_USE_MLAPO",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `not is_mla_preprocess_enabled()` at pkg/attn.py:11, "
        "which reaches calls Attention.rotary_emb (pkg/attn.py:6) -> calls fused_rope "
        f"(pkg/kernels.py:15) -> {_CHAIN.split(' -> ', 1)[1]}; X_NPU_USE_MLAPO='1' leaves that "
        "branch, and what runs instead reaches no such kernel; but '1' runs "
        "torch.ops.npu.mla_preprocess at pkg/mla_preprocess.py:15, an operator only a machine "
        "without a GPU (an NPU, the CPU) runs, in its place: not a plain path; a person must say",
    ),
    (
        "an-npu-operator-in-the-place-of-a-custom-op-is-the-plugins-plain-path",
        NPU_PLUGIN,
        "X_FUSION_OP_TRANSPOSE_KV_CACHE_BY_BLOCK",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        _PLUGIN_REASON,
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_a_gpu_runs_decides_the_kernel_side(
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
