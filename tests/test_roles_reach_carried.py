"""Roles of gates whose value the walk carries past what the probes followed: a module name
bound to a test the probes could not evaluate, a cell of a module-level cache.

Each case is a small tree in the shape of the real code it stands for (named above it),
scanned; the role, polarity, off value and the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import KERNEL, role_facts, scanned_knob

# What the library probe computes at import: not a value the probes know.
LIB = """\
import importlib.util

HAS_LIB = importlib.util.find_spec("flash_attn") is not None
DEVICE = "cuda" if HAS_LIB else "cpu"
"""

# unslothai/unsloth, unsloth/models/gemma2.py:79-88 and 107-108 (also sglang's
# srt/models/qwen3_5.py:184): a module name bound to the variable's test beside names
# computed at import, reset under a failed import, and tested by a predicate the decode
# path asks.
MODULE_NAME = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/lib.py": LIB,
    "pkg/decode.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.lib import DEVICE, HAS_LIB\n"
        "from pkg.kernels import fused_rms_norm\n\n"
        "_FAST = (\n"
        "    HAS_LIB\n"
        '    and DEVICE == "cuda"\n'
        '    and os.environ.get("X_FAST_DECODE", "1") != "0"\n'
        ")\n"
        "if _FAST:\n"
        "    try:\n"
        "        import flash_attn\n"
        "    except Exception:\n"
        "        _FAST = False\n\n\n"
        "def _usable(x):\n"
        "    if not _FAST or x.dtype not in (torch.float16, torch.bfloat16):\n"
        "        return False\n"
        "    return x.dim() == 4\n\n\n"
        "def decode(x):\n"
        "    if _usable(x):\n"
        "        return fused_rms_norm(x)\n"
        "    return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
    ),
}

# unslothai/unsloth, unsloth/kernels/large_head_attention.py:711-717 and 883: the value
# kept in a cell of a module-level list (read once, like a cache) and returned from it.
CACHE_CELL = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/attention.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import fused_rms_norm\n\n"
        "_ENABLED = [None]\n\n\n"
        "def _enabled():\n"
        "    if _ENABLED[0] is None:\n"
        '        _ENABLED[0] = os.environ.get("X_BIG_HEAD", "1") != "0"\n'
        "    return _ENABLED[0]\n\n\n"
        "def attention(x):\n"
        "    if _enabled() and x.dim() == 4:\n"
        "        return fused_rms_norm(x)\n"
        "    return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
    ),
}

# unslothai/unsloth_zoo, temporary_patches/gpt_oss_routed.py:56-60 and 362: the off value
# looked for among two reads and returned beside another test, by a predicate of "disabled".
AMONG_READS = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/moe.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "def mode():\n"
        "    return torch.backends.cuda.preferred_blas_library()\n\n\n"
        "def _routed_disabled():\n"
        '    return "0" in (\n'
        '        os.environ.get("X_ROUTED_KERNEL", "1"),\n'
        '        os.environ.get("X_ROUTED_INFERENCE", "1"),\n'
        '    ) or mode() == "0"\n\n\n'
        "def forward(x):\n"
        "    if _routed_disabled():\n"
        "        return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
        "    return fused_rms_norm(x)\n"
    ),
}

# unslothai/unsloth_zoo, fused_losses/fused_linear.py:2390 and chunked_logprob.py:75,281: a
# custom op of the package's namespace looked up by a name the module holds.
OP_BY_NAME = {
    "pkg/__init__.py": "",
    "pkg/fused.py": (
        "import torch\n\n"
        '_LP_OP = "fused_logprobs"\n\n\n'
        "def fused_logprobs(hidden, weight):\n"
        "    return getattr(torch.ops.pkg_ops, _LP_OP)(hidden, weight)\n"
    ),
    "pkg/loss.py": (
        "import os\n\nimport torch\n\n"
        '_FUSED = os.environ.get("X_FUSED_LINEAR", "1") != "0"\n\n\n'
        "def logprobs(hidden, weight):\n"
        "    if _FUSED:\n"
        "        from pkg.fused import fused_logprobs\n\n"
        "        return fused_logprobs(hidden, weight)\n"
        "    return torch.log_softmax(hidden @ weight.T, -1)\n"
    ),
}

# axolotl-ai-cloud/axolotl, integrations/kernels/libs/sonicmoe/triton_nvfp4.py:54-58,321-333,
# 459-477 and nvfp4_quant.py:221: the Triton kernels defined inside a factory function
# (cached), returned in a tuple and launched from it.
KERNEL_FACTORY = {
    "pkg/__init__.py": "",
    "pkg/quant_triton.py": (
        "import functools\nfrom collections import namedtuple\n\n"
        '_KernelSet = namedtuple("_KernelSet", ["fake_quant"])\n\n\n'
        "def _kernels():\n"
        "    import triton\n"
        "    import triton.language as tl\n\n"
        "    @triton.jit\n"
        "    def _fake_quant_kernel(x_ptr, n):\n"
        "        tl.store(x_ptr, n)\n\n"
        "    return _KernelSet(fake_quant=_fake_quant_kernel)\n\n\n"
        "@functools.lru_cache(maxsize=1)\n"
        "def _get_kernels():\n"
        "    return _kernels()\n\n\n"
        "def fake_quant_triton(x):\n"
        "    kernel = _get_kernels().fake_quant\n"
        "    kernel[(x.shape[0],)](x, x.numel())\n"
        "    return x\n"
    ),
    "pkg/quant.py": (
        "import os\n\nimport torch\n\n\n"
        "def fake_quant(x):\n"
        '    if x.is_cuda and os.environ.get("X_MERGE_AWARE_KERNEL") != "0":\n'
        "        from pkg.quant_triton import fake_quant_triton\n\n"
        "        return fake_quant_triton(x)\n"
        "    return torch.round(x)\n"
    ),
}

# vllm-project/vllm, vllm/envs.py:914, v1/attention/backends/cpu_attn.py:262-273 and
# _custom_ops.py:4046-4061: the value handed as ``enable_kv_split=`` to the wrapper of the
# custom op that plans the CPU attention's split over the KV sequence.
SPLIT_KEYWORD = {
    "pkg/__init__.py": "",
    "pkg/envs.py": (
        "import os\n\n"
        "environment_variables = {\n"
        '    "X_CPU_ATTN_SPLIT_KV": lambda: bool(int(os.getenv("X_CPU_ATTN_SPLIT_KV", "1"))),\n'
        "}\n\n\n"
        "def __getattr__(name):\n"
        "    if name in environment_variables:\n"
        "        return environment_variables[name]()\n"
        "    raise AttributeError(name)\n"
    ),
    "pkg/_custom_ops.py": (
        "import torch\n\n\n"
        "def cpu_attn_get_scheduler_metadata(seq_lens, enable_kv_split):\n"
        "    return torch.ops._C.get_scheduler_metadata(seq_lens, enable_kv_split)\n"
    ),
    "pkg/cpu_attn.py": (
        "from pkg import _custom_ops as ops\nfrom pkg import envs\n\n\n"
        "def build(seq_lens):\n"
        "    return ops.cpu_attn_get_scheduler_metadata(\n"
        "        seq_lens=seq_lens,\n"
        "        enable_kv_split=envs.X_CPU_ATTN_SPLIT_KV,\n"
        "    )\n"
    ),
}

# unslothai/unsloth, unsloth/kernels/qk_norm_rope.py:30-41 and models/qwen3.py:121: what a
# predicate returns bound to a module name at import, tested through the module elsewhere.
BOUND_AT_IMPORT = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/lib.py": LIB,
    "pkg/qk_norm.py": (
        "import os\n\nfrom pkg.lib import DEVICE\n\n\n"
        "def _default():\n"
        '    flag = os.environ.get("X_FUSED_QKNORM", "").strip().lower()\n'
        '    if flag in ("0", "false", "no", "off"):\n'
        "        return False\n"
        '    return DEVICE == "cuda"\n\n\n'
        "QK_NORM_ENABLED = _default()\n"
    ),
    "pkg/model.py": (
        "import torch\n\n"
        "import pkg.qk_norm as _qk_norm\n"
        "from pkg.kernels import fused_rms_norm\n\n\n"
        "def forward(q):\n"
        "    if _qk_norm.QK_NORM_ENABLED:\n"
        "        return fused_rms_norm(q)\n"
        "    return torch.nn.functional.rms_norm(q, q.shape[-1:])\n"
    ),
}

# unslothai/unsloth_zoo, fused_losses/preference_loss.py:40-44, 70, 73-74 and 625: a number
# (a chunk size) read at one site, and its presence tested at another to leave the fused op:
# whatever value a recipe sets to leave it sets the size too.
PRESENT_SIZE = {
    "pkg/__init__.py": "",
    "pkg/fused.py": OP_BY_NAME["pkg/fused.py"],
    "pkg/preference.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.fused import fused_logprobs\n\n\n"
        "def _target_chunk_bytes():\n"
        '    value = os.environ.get("X_PREFERENCE_CHUNK_MB", "256").strip()\n'
        "    return max(int(value), 1) * 1024 * 1024\n\n\n"
        '_EXPLICIT_CHUNK_MB = "X_PREFERENCE_CHUNK_MB" in os.environ\n\n\n'
        "def logprobs(hidden, weight):\n"
        "    if not _EXPLICIT_CHUNK_MB and weight.dtype != torch.float64:\n"
        "        return fused_logprobs(hidden, weight)\n"
        "    rows = _target_chunk_bytes() // (16 * weight.shape[0])\n"
        "    return torch.cat([torch.log_softmax(h @ weight.T, -1) for h in hidden.split(rows)])\n"
    ),
}

# ROCm/aiter, ops/triton/_triton_kernels/gated_delta_rule/gated_delta_rule_utils.py:484-490 and
# utils/op.py:48-70: a Triton stub defined at module level where the feature is off (it returns
# None); the on side binds Triton's own function. Defining the stub launches nothing.
MODULE_STUB = {
    "pkg/__init__.py": "",
    "pkg/lib.py": LIB,
    "pkg/utils.py": (
        "import os\n\nimport triton\n\nfrom pkg.lib import HAS_LIB\n\n"
        "IS_TMA_SUPPORTED = (\n"
        '    HAS_LIB and os.environ.get("X_USE_TMA", "0") == "1"\n'
        '    and hasattr(triton.language, "make_tensor_descriptor")\n'
        ")\n"
    ),
    "pkg/op.py": (
        "import triton\n\nfrom pkg.utils import IS_TMA_SUPPORTED\n\n"
        "if IS_TMA_SUPPORTED:\n"
        "    make_tensor_descriptor = triton.language.make_tensor_descriptor\n"
        "else:\n\n"
        "    @triton.jit\n"
        "    def make_tensor_descriptor(base, shape, strides, block_shape):\n"
        "        return\n"
    ),
}

CASES = [
    (
        "a-module-name-bound-beside-names-computed-at-import",
        MODULE_NAME,
        "X_FAST_DECODE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_usable(x)` at pkg/decode.py:27, which reaches calls "
        "fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_FAST_DECODE='0' leaves that branch, "
        "and what runs instead reaches no such kernel",
    ),
    (
        "a-cell-of-a-module-level-cache-returned",
        CACHE_CELL,
        "X_BIG_HEAD",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_enabled() and x.dim() == 4` at pkg/attention.py:17, "
        "which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; X_BIG_HEAD='0' "
        "leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "the-off-value-looked-for-among-reads",
        AMONG_READS,
        "X_ROUTED_KERNEL",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `not _routed_disabled()` at pkg/moe.py:20, which reaches "
        "calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _fwd_kernel at pkg/kernels.py:6; X_ROUTED_KERNEL='0' leaves that branch, "
        "and what runs instead reaches no such kernel",
    ),
    (
        "a-custom-op-looked-up-by-name",
        OP_BY_NAME,
        "X_FUSED_LINEAR",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_FUSED` at pkg/loss.py:9, which reaches calls "
        "fused_logprobs (pkg/fused.py:6) -> torch.ops.pkg_ops.<_LP_OP> at pkg/fused.py:7; "
        "X_FUSED_LINEAR='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "triton-kernels-defined-in-a-factory",
        KERNEL_FACTORY,
        "X_MERGE_AWARE_KERNEL",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `x.is_cuda and os.environ.get('X_MERGE_AWARE_KERNEL') != "
        "'0'` at pkg/quant.py:7, which reaches calls fake_quant_triton (pkg/quant_triton.py:23) "
        "-> calls _get_kernels (pkg/quant_triton.py:19) -> calls _kernels "
        "(pkg/quant_triton.py:7) -> @triton.jit _fake_quant_kernel at pkg/quant_triton.py:12; "
        "X_MERGE_AWARE_KERNEL='0' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        "a-value-handed-as-a-split-keyword",
        SPLIT_KEYWORD,
        "X_CPU_ATTN_SPLIT_KV",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs `envs.X_CPU_ATTN_SPLIT_KV` at pkg/cpu_attn.py:8, which reaches "
        "enable_kv_split= handed to ops.cpu_attn_get_scheduler_metadata() at pkg/cpu_attn.py:8; "
        "X_CPU_ATTN_SPLIT_KV='0' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        "a-predicate-bound-to-a-module-name-at-import",
        BOUND_AT_IMPORT,
        "X_FUSED_QKNORM",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `_qk_norm.QK_NORM_ENABLED` at pkg/model.py:8, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; X_FUSED_QKNORM='0' "
        "leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "the-presence-of-a-size-read-elsewhere",
        PRESENT_SIZE,
        "X_PREFERENCE_CHUNK_MB",
        Role.UNKNOWN,
        Polarity.DISABLE,
        None,
        "pkg/preference.py:9 declares it with the number 256: a size or a count, whose values "
        "are not on and off; a person must say",
    ),
    (
        "a-triton-stub-defined-at-module-level-is-not-launched",
        MODULE_STUB,
        "X_USE_TMA",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_role_from_a_carried_value(
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
