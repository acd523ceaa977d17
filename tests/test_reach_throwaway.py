"""A branch whose only rebinding is of ``_`` (a value no one reads) leaves nothing in its
place when skipped: Dao-AILab/flash-attention 0251105 hopper/benchmark_attn.py:38, :368-376,
reduced (the benchmark's backward of FlashAttention 3, skipped under
FLASH_ATTENTION_DISABLE_BACKWARD=TRUE, a build setting of hopper/setup.py:51 too)."""

from __future__ import annotations

from pathlib import Path

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

BENCHMARK = {
    "hopper/benchmark_attn.py": (
        "import os\n\n"
        "from flash_attn_interface import flash_attn_func as flash_attn_func_v3\n\n"
        'DISABLE_BACKWARD = os.getenv("FLASH_ATTENTION_DISABLE_BACKWARD", "FALSE") == "TRUE"\n\n\n'
        "def benchmark_backward(fn, *inputs):\n"
        "    return None, fn(*inputs)\n\n\n"
        "def run(q, k, v, headdim, headdim_v):\n"
        "    _, m0b = benchmark_backward(print, q)\n"
        "    if headdim == headdim_v and not DISABLE_BACKWARD:\n"
        "        _, m1b = benchmark_backward(flash_attn_func_v3, q, k, v)\n"
        "        print(m1b)\n"
    ),
}


def test_a_skipped_branch_that_rebinds_only_the_throwaway_name_leaves_nothing(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(tmp_path, BENCHMARK, "FLASH_ATTENTION_DISABLE_BACKWARD")
    assert role_facts(knob) == (
        Role.UNKNOWN,
        Polarity.DISABLE,
        "FALSE",
        "unset, it runs the branch of `headdim == headdim_v and (not DISABLE_BACKWARD)` at "
        "hopper/benchmark_attn.py:14, which reaches FlashAttention 3 "
        "(flash_attn_interface.flash_attn_func) at hopper/benchmark_attn.py:15; "
        "FLASH_ATTENTION_DISABLE_BACKWARD='TRUE' skips that branch and runs nothing in its "
        "place, so the work it does may be left undone: a person must say",
    )
