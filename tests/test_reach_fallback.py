"""The side of a kernel choice the code takes on every machine (scanner.reach.fallback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def _fwd_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def separate_steps(x):
    _fwd_kernel[(1,)](x, 1)
    return x
"""
PLATFORM = """\
def is_cuda():
    return True


def is_hip():
    return False


_is_cuda = is_cuda()
_is_hip = is_hip()
_is_npu = False
_is_xpu = False
"""
# sglang 0.5.23 srt/layers/attention/dsa/dsa_indexer.py:310-314 (the fused path only where
# `_is_cuda` holds) and :934-944 (the packed projection or the separate steps).
JOINED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/indexer.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import _is_cuda\n\n\n"
        "class Indexer:\n"
        "    def __init__(self, neox):\n"
        "        self.use_fusion = (\n"
        "            _is_cuda\n"
        '            and os.environ.get("X_DISABLE_FUSION", "0") != "1"\n'
        "            and not neox\n"
        "        )\n\n"
        "    def forward(self, x):\n"
        "        if self.use_fusion:\n"
        "            return torch.ops.pkg.fused_prepare(x)\n"
        "        return separate_steps(x)\n"
    ),
}
# sglang 0.5.23 srt/models/deepseek_v4.py:5193 (`if _is_npu or _is_xpu or not X:` takes the
# separate steps, else the fused TileLang kernel).
EITHER = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/layer.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import _is_npu, _is_xpu\n\n\n"
        "def hc_pre(x):\n"
        '        if _is_npu or _is_xpu or not int(os.environ.get("X_FUSED_PRE", "1")):\n'
        "            return separate_steps(x)\n"
        "        return torch.ops.pkg.mhc_pre(x)\n"
    ),
}
# sglang 0.5.23 srt/models/deepseek_v4.py:487-488 (a predicate of the GPU generation) and
# :1533-1542 (a flag that joins the switch with it), tested in forward.
PREDICATE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/attn.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import _is_cuda\n\n\n"
        "def _arch_supported():\n"
        "    return _is_cuda and torch.cuda.get_device_capability()[0] == 10\n\n\n"
        "class Attention:\n"
        "    def __init__(self, v41):\n"
        "        self.use_fused = (\n"
        "            v41\n"
        '            and os.environ.get("X_FUSED_WO_A", "1") == "1"\n'
        "            and _arch_supported()\n"
        "        )\n\n"
        "    def forward(self, x):\n"
        "        if self.use_fused:\n"
        "            return torch.ops.pkg.fused_wo_a(x)\n"
        "        return separate_steps(x)\n"
    ),
}
# sglang 0.5.23 multimodal_gen/runtime/layers/layernorm.py:1183,1206: the value kept in a
# local, joined with a test of the machine where it is tested.
LOCAL = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/norm.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import _is_cuda, _is_hip\n\n\n"
        "def qk_norm_rope(x, inplace):\n"
        '    fused_enabled = os.environ.get("X_FUSED_QKNORM_ROPE", "1") != "0"\n'
        "    if fused_enabled and (_is_cuda or _is_hip) and inplace:\n"
        "        return torch.ops.pkg.fused_qknorm_rope(x)\n"
        "    return separate_steps(x)\n"
    ),
}
# sglang 0.5.23 srt/models/deepseek_common/amd/deepseek_v4_fused_mhc.py:82 (`X or
# is_sm120`): '0' leaves the fused side to the machine too, so no value is the fallback.
EITHER_WAY = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM + "\n\ndef get_platform():\n    return None\n",
    "pkg/mhc.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import get_platform\n\n\n"
        "def post_pre(x):\n"
        '    if os.environ.get("X_FUSED_PRE", "1") == "1" or get_platform().is_sm120:\n'
        "        return torch.ops.pkg.mhc_post_pre(x)\n"
        "    return separate_steps(x)\n"
    ),
}
# sglang 0.5.23 srt/models/inkling_common/attn.py:182-216 and :364-369: the dispatch that
# follows the token count is on only where the deterministic flag handed to the
# constructor is off.
DETERMINISTIC = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/proj.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import separate_steps\n\n\n"
        "class RelProj:\n"
        "    def __init__(self, *, deterministic=False):\n"
        "        self._dispatch = (\n"
        '            os.environ.get("X_REL_PROJ_DISPATCH", "1") == "1" and not deterministic\n'
        "        )\n\n"
        "    def project(self, r):\n"
        "        if not self._dispatch or r.is_contiguous():\n"
        "            return separate_steps(r)\n"
        "        return torch.ops.pkg.row_compact(r)\n"
    ),
}
# sglang 0.5.23 srt/layers/quantization/mxfp4.py:150-154 and quark_w4a4_mxfp4_moe.py:49,
# 983-988: a switch off by default, mirrored from a library that reads it; '1' takes the
# layout every machine takes, but it turns the library's mode on, no fallback to write.
TURNS_ON = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/layout.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import _is_hip\n\n"
        "_is_shuffle = _is_hip\n\n\n"
        "def _uses_interleaved():\n"
        '    a4w4 = os.environ.get("X_SITU_A4W4", "0") == "1"\n'
        "    return not a4w4\n\n\n"
        "def process(w):\n"
        "    if _is_shuffle and _uses_interleaved():\n"
        "        return torch.ops.pkg.shuffle_a16w4(w)\n"
        "    return separate_steps(w)\n"
    ),
}
# sglang 0.5.23 kernels/ops/layernorm/mhc.py:228 (`X and not is_hip()`) beside
# srt/models/deepseek_common/amd/deepseek_v4_fused_mhc.py:82 (`A and (X or is_sm120)`):
# the second test is left to the rest under either value, so it says nothing against '0'.
INNER_OR = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM + "\n\ndef get_platform():\n    return None\n",
    "pkg/mhc.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\n"
        "from pkg.platform import get_platform, is_hip\n\n\n"
        "def _use_pre():\n"
        '    return os.environ.get("X_FUSED_PRE", "1") == "1" and not is_hip()\n\n\n'
        "def _use_post_pre(fuse):\n"
        "    return fuse and (\n"
        '        os.environ.get("X_FUSED_PRE", "1") == "1" or get_platform().is_sm120\n'
        "    )\n\n\n"
        "def pre(x):\n"
        "    if not _use_pre():\n"
        "        return separate_steps(x)\n"
        "    return torch.ops.pkg.mhc_pre(x)\n\n\n"
        "def post_pre(x, fuse):\n"
        "    if _use_post_pre(fuse):\n"
        "        return torch.ops.pkg.mhc_post_pre(x)\n"
        "    return pre(x)\n"
    ),
}
# Two tests that disagree: one takes the fused side only on CUDA with the switch on, the
# other only on HIP with it off, so unset is the fallback of the second.
DISAGREE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/ops.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import _is_cuda, _is_hip\n\n"
        'USE = os.environ.get("X_FUSED_OPS", "1") == "1"\n\n\n'
        "def run(x):\n"
        "    if _is_cuda and USE:\n"
        "        return torch.ops.pkg.fused_cuda(x)\n"
        "    if _is_hip and not USE:\n"
        "        return torch.ops.pkg.fused_hip(x)\n"
        "    return separate_steps(x)\n"
    ),
}

# sglang 0.5.23 srt/models/deepseek_v4.py:1530, :2163 and
# srt/models/deepseek_common/amd/deepseek_v4_hip.py:65-66: a helper's answer joined with
# `_is_hip` into a flag the forward tests alone.
FLAG = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/hip.py": (
        "import os\n\n\n"
        "def use_fused_qk_norm_rope(attn):\n"
        '    return bool(os.environ.get("X_FUSED_QK_NORM_ROPE", "1") == "1" and attn.q_norm)\n'
    ),
    "pkg/attn.py": (
        "import torch\n\n"
        "from pkg import hip\nfrom pkg.kernels import separate_steps\n"
        "from pkg.platform import _is_hip\n\n\n"
        "class Attn:\n"
        "    def __init__(self, q_norm):\n"
        "        self.q_norm = q_norm\n"
        "        self.use_fused = _is_hip and hip.use_fused_qk_norm_rope(self)\n\n"
        "    def forward(self, x):\n"
        "        if self.use_fused:\n"
        "            return torch.ops.pkg.fused_qk_norm_rope_store(x)\n"
        "        return separate_steps(x)\n"
    ),
}
# sglang 0.5.23 srt/models/inkling.py:684-700: a warm-up of the fused all-reduce's JIT
# module, joined with `is_cuda()`, whose other side runs nothing: every other machine skips
# it too, so the skip is the code's fallback.
WARMUP = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/platform.py": PLATFORM,
    "pkg/model.py": (
        "import os\n\n"
        "from pkg.kernels import separate_steps\nfrom pkg.platform import is_cuda\n\n\n"
        "class Model:\n"
        "    def __init__(self, world):\n"
        "        if (\n"
        "            is_cuda()\n"
        '            and os.environ.get("X_CUSTOM_AR", "1") == "1"\n'
        "            and world in (4, 8)\n"
        "        ):\n"
        "            separate_steps(world)\n"
        "        self.world = world\n"
    ),
}
# The same warm-up with no test of the machine beside the read: what the skip leaves undone
# is not shown to be optional, a doubt.
WARMUP_ALONE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/model.py": (
        "import os\n\n"
        "from pkg.kernels import separate_steps\n\n\n"
        "class Model:\n"
        "    def __init__(self, world):\n"
        '        if os.environ.get("X_CUSTOM_AR", "1") == "1" and world in (4, 8):\n'
        "            separate_steps(world)\n"
        "        self.world = world\n"
    ),
}

CASES: list[tuple[str, dict[str, str], str, Role, Polarity, str | None, str]] = [
    (
        "joined-with-a-machine-test-at-the-read",
        JOINED,
        "X_DISABLE_FUSION",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.fused_prepare at "
        "pkg/indexer.py:19; X_DISABLE_FUSION='1', calls separate_steps (pkg/kernels.py:10) ->"
        " calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; at pkg/indexer.py:12 X_DISABLE_FUSION='1' decides the test alone, "
        "while unset leaves it to `_is_cuda`: X_DISABLE_FUSION='1' takes the side the code "
        "runs on every machine, its fallback",
    ),
    (
        "a-machine-test-or-the-switch-off",
        EITHER,
        "X_FUSED_PRE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.mhc_pre at "
        "pkg/layer.py:12; X_FUSED_PRE='0', calls separate_steps (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; at "
        "pkg/layer.py:10 X_FUSED_PRE='0' decides the test alone, while unset leaves it to "
        "`_is_npu`: X_FUSED_PRE='0' takes the side the code runs on every machine, its "
        "fallback",
    ),
    (
        "a-flag-with-a-predicate-of-the-machine",
        PREDICATE,
        "X_FUSED_WO_A",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.fused_wo_a at "
        "pkg/attn.py:23; X_FUSED_WO_A='0', calls separate_steps (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; at "
        "pkg/attn.py:16 X_FUSED_WO_A='0' decides the test alone, while unset leaves it to "
        "`_arch_supported()`: X_FUSED_WO_A='0' takes the side the code runs on every machine,"
        " its fallback",
    ),
    (
        "a-local-joined-where-it-is-tested",
        LOCAL,
        "X_FUSED_QKNORM_ROPE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.fused_qknorm_rope at "
        "pkg/norm.py:12; X_FUSED_QKNORM_ROPE='0', calls separate_steps (pkg/kernels.py:10) ->"
        " calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; at pkg/norm.py:11 X_FUSED_QKNORM_ROPE='0' decides the test alone, "
        "while unset leaves it to `_is_cuda or _is_hip`: X_FUSED_QKNORM_ROPE='0' takes the "
        "side the code runs on every machine, its fallback",
    ),
    (
        "joined-with-the-deterministic-flag-off",
        DETERMINISTIC,
        "X_REL_PROJ_DISPATCH",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.row_compact at "
        "pkg/proj.py:17; X_REL_PROJ_DISPATCH='0', calls separate_steps (pkg/kernels.py:10) ->"
        " calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; at pkg/proj.py:11 X_REL_PROJ_DISPATCH='0' decides the test alone, "
        "while unset leaves it to `not deterministic`: X_REL_PROJ_DISPATCH='0' takes the side"
        " the code runs in its deterministic mode, its fallback",
    ),
    (
        "the-machine-opens-the-fused-side-too",
        EITHER_WAY,
        "X_FUSED_PRE",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.mhc_post_pre at "
        "pkg/mhc.py:11; X_FUSED_PRE='0', calls separate_steps (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6",
    ),
    (
        "an-inner-or-the-machine-opens-too-says-nothing",
        INNER_OR,
        "X_FUSED_PRE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.mhc_post_pre at "
        "pkg/mhc.py:27; X_FUSED_PRE='0', calls separate_steps (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; at "
        "pkg/mhc.py:10 X_FUSED_PRE='0' decides the test alone, while unset leaves it to "
        "`not is_hip()`: X_FUSED_PRE='0' takes the side the code runs on every machine, its "
        "fallback",
    ),
    (
        "the-fallback-turns-a-feature-on",
        TURNS_ON,
        "X_SITU_A4W4",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.shuffle_a16w4 at "
        "pkg/layout.py:18; X_SITU_A4W4='1', calls separate_steps (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6",
    ),
    (
        "two-tests-disagree",
        DISAGREE,
        "X_FUSED_OPS",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.fused_cuda at "
        "pkg/ops.py:13; X_FUSED_OPS='0', torch.ops.pkg.fused_hip at pkg/ops.py:15",
    ),
    (
        "a-skip-joined-with-a-machine-test",
        WARMUP,
        "X_CUSTOM_AR",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `is_cuda() and os.environ.get('X_CUSTOM_AR', '1') == "
        "'1' a...` at pkg/model.py:10, which reaches calls separate_steps (pkg/kernels.py:10) "
        "-> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; X_CUSTOM_AR='0' skips that branch and runs nothing in its place; "
        "at pkg/model.py:10 X_CUSTOM_AR='0' decides the test alone, while unset leaves it to "
        "`is_cuda()`: X_CUSTOM_AR='0' takes the side the code runs on every machine, its "
        "fallback",
    ),
    (
        "a-skip-with-no-machine-test",
        WARMUP_ALONE,
        "X_CUSTOM_AR",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `os.environ.get('X_CUSTOM_AR', '1') == '1' and world "
        "in (4...` at pkg/model.py:8, which reaches calls separate_steps (pkg/kernels.py:10) "
        "-> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; X_CUSTOM_AR='0' skips that branch and runs nothing in its place, "
        "so the work it does may be left undone: a person must say",
    ),
    (
        "a-flag-that-holds-a-machine-test",
        FLAG,
        "X_FUSED_QK_NORM_ROPE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, torch.ops.pkg.fused_qk_norm_rope_store "
        "at pkg/attn.py:15; X_FUSED_QK_NORM_ROPE='0', calls separate_steps (pkg/kernels.py:10) "
        "-> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at "
        "pkg/kernels.py:6; at pkg/attn.py:14 X_FUSED_QK_NORM_ROPE='0' decides the test alone, "
        "while unset leaves it to `_is_hip`: X_FUSED_QK_NORM_ROPE='0' takes the side the code "
        "runs on every machine, its fallback",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_fallback(
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
