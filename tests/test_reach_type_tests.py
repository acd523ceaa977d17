"""A class an object is tested against (``isinstance(pool, HybridPool)``) is not called:
what its constructor reaches is not what the test's code reaches."""

from __future__ import annotations

from pathlib import Path

from scanner import Role
from tests.scanned import scanned_knob

# sgl-project/sglang python/sglang/srt/disaggregation/checksum.py:54-58 (reached from
# srt/disaggregation/prefill.py:1463): the pool is tested against a class whose constructor
# runs a Triton kernel (srt/mem_cache/memory_pool.py:2375, kvcache/cache_move.py:146).
TYPE_TEST = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": (
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\ndef _copy_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "class HybridPool:\n"
        "    def __init__(self, x):\n"
        "        _copy_kernel[(1,)](x, 1)\n"
        "        self.indices = x\n"
    ),
    "pkg/send.py": (
        "import os\n\n"
        "from pkg.kernels import HybridPool\n\n\n"
        "def state_indices(pool):\n"
        "    if isinstance(pool, (HybridPool, dict)):\n"
        "        return pool.indices\n"
        "    return None\n\n\n"
        "def maybe_send_cached_prefix(pool):\n"
        '    if os.environ.get("X_EARLY_SEND", "1") == "0":\n'
        "        return None\n"
        "    return state_indices(pool)\n"
    ),
}


def test_a_class_tested_against_is_not_called(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, TYPE_TEST, "X_EARLY_SEND")
    assert (knob.role, knob.role_reason) == (
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    )
