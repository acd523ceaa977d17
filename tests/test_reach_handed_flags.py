"""A flag a gate's side sets, handed to a function the object keeps and tested there, or
tested by a predicate whose callers test what it returns.

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
def _lean_kernel(x_ptr, n):
    tl.atomic_xchg(x_ptr, n)


def lean_decode(x):
    _lean_kernel[(1,)](x, 1)
    return x
"""

# sgl-project/sglang, python/sglang/srt/layers/attention/triton_backend.py:188,2399-2400,
# 2472-2494 and python/sglang/kernels/ops/attention/decode_attention.py:1236-1248,1939:
# the knob sets a local flag False, handed as ``enable_lean=`` to the function the backend
# keeps on itself (``self.decode_attention_fwd = torch.compiler.disable(fwd)``), which
# hands it to a predicate (``if not enable_lean: return False``) tested before the kernel.
LEAN = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/decode.py": (
        "from pkg.kernels import lean_decode\n\n\n"
        "def _should_use_lean(enable_lean, logit_cap):\n"
        "    if not enable_lean:\n"
        "        return False\n"
        "    if logit_cap > 0:\n"
        "        return False\n"
        "    return True\n\n\n"
        "def decode_fwd(q, o, logit_cap=0.0, enable_lean=None):\n"
        "    if q.is_cuda and _should_use_lean(enable_lean, logit_cap):\n"
        "        lean_decode(q)\n"
        "        return\n"
        "    o.copy_(q.softmax(-1))\n"
    ),
    "pkg/backend.py": (
        "import os\n\nimport torch\n\n\n"
        "class Backend:\n"
        "    def __init__(self, deterministic):\n"
        "        from pkg.decode import decode_fwd\n\n"
        "        self.decode_fwd = torch.compiler.disable(decode_fwd)\n"
        "        self.deterministic = deterministic\n\n"
        "    def forward(self, q, o, auto):\n"
        '        if self.deterministic or os.environ.get("X_DISABLE_LEAN", "0") == "1":\n'
        "            enable_lean = False\n"
        "        else:\n"
        "            enable_lean = auto(q)\n"
        "        self.decode_fwd(q, o, enable_lean=enable_lean)\n"
    ),
}

# The same function kept on the object, testing the flag itself.
KEPT_FUNCTION = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/decode.py": (
        "def decode_fwd(q, o, enable_lean=None):\n"
        "    if enable_lean:\n"
        "        from pkg.kernels import lean_decode\n\n"
        "        lean_decode(q)\n"
        "    else:\n"
        "        o.copy_(q.softmax(-1))\n"
    ),
    "pkg/backend.py": (
        "import os\n\n"
        "from pkg.decode import decode_fwd\n\n\n"
        "class Backend:\n"
        "    def __init__(self):\n"
        "        self.decode_fwd = decode_fwd\n\n"
        "    def forward(self, q, o):\n"
        '        if os.environ.get("X_DISABLE_LEAN", "0") == "1":\n'
        "            enable_lean = False\n"
        "        else:\n"
        "            enable_lean = q.shape[0] > 1\n"
        "        self.decode_fwd(q, o, enable_lean=enable_lean)\n"
    ),
}

# facebookresearch/xformers, xformers/ops/sequence_parallel_fused_ops.py:355-372 and
# :587-614: the knob makes a cached local None where the other side may build the fused
# object; it is returned, and the caller tests ``obj is None`` for the plain fallback. (In
# xformers the fast path's work is symmetric-memory copies on side streams, which no mark
# names; here it calls a Triton kernel.)
OBJECT_OR_NONE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/seqpar.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.kernels import lean_decode\n\n"
        "CACHE = {}\n\n\n"
        "class _Fused:\n"
        "    def __init__(self, group):\n"
        "        self.group = group\n\n\n"
        "def _lazy_init(group):\n"
        "    try:\n"
        "        obj = CACHE[id(group)]\n"
        "    except KeyError:\n"
        '        if int(os.environ.get("X_DISABLE_FUSED_GATHER", "0")):\n'
        "            obj = None\n"
        "        elif group.size() == 1:\n"
        "            obj = None\n"
        "        else:\n"
        "            obj = _Fused(group)\n"
        "        CACHE[id(group)] = obj\n"
        "    return obj\n\n\n"
        "def fused_allgather(x, group):\n"
        "    obj = _lazy_init(group)\n"
        "    if group.size() == 1:\n"
        "        return x\n"
        "    elif obj is None:\n"
        "        return torch.distributed.all_gather_into_tensor(x, x, group=group)\n"
        "    else:\n"
        "        return lean_decode(x)\n"
    ),
}

CASES = [
    (
        "a-flag-handed-to-a-kept-function-and-its-predicate",
        LEAN,
        "X_DISABLE_LEAN",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `q.is_cuda and _should_use_lean(enable_lean, logit_cap)` "
        "at pkg/decode.py:13, which reaches calls lean_decode (pkg/kernels.py:10) -> calls "
        "_lean_kernel (pkg/kernels.py:6) -> @triton.jit _lean_kernel at pkg/kernels.py:6; "
        "X_DISABLE_LEAN='1' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-flag-handed-to-a-function-kept-on-the-object",
        KEPT_FUNCTION,
        "X_DISABLE_LEAN",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `enable_lean` at pkg/decode.py:2, which reaches calls "
        "lean_decode (pkg/kernels.py:10) -> calls _lean_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _lean_kernel at pkg/kernels.py:6; X_DISABLE_LEAN='1' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "an-object-or-none-returned-and-tested",
        OBJECT_OR_NONE,
        "X_DISABLE_FUSED_GATHER",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `not (obj is None)` at pkg/seqpar.py:33, which reaches "
        "calls lean_decode (pkg/kernels.py:10) -> calls _lean_kernel (pkg/kernels.py:6) -> "
        "@triton.jit _lean_kernel at pkg/kernels.py:6; X_DISABLE_FUSED_GATHER='1' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_flags_handed_on(
    tmp_path: Path,
    files: dict[str, str],
    name: str,
    role: Role,
    polarity: Polarity,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert (knob.role, knob.polarity, knob.role_reason) == (role, polarity, reason)
