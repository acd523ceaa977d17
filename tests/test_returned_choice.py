"""A choice a selector returns, compared by its caller's dispatch: each value's side is the
code that caller runs for it, the value's tests further down the dispatch decided.

unslothai unsloth_zoo 2026.10.9, temporary_patches/moe_utils.py:2120-2145 (the selector
returns "grouped_mm", "unsloth_triton" or "native_torch", the first two only where the
machine has them) and :2251-2267 (``forward_moe_backend``: ``if backend == "grouped_mm":
return ...``, ``if backend == "unsloth_triton" and not _gate_up_is_interleaved(self):
return forward_triton_grouped_gemm(...)``, ``return forward_native_moe_loop(...)``). The
side ``"native_torch"`` takes at the first test is all the code after it, the autotuned
Triton grouped GEMM included (unsloth/kernels/moe/autotune_cache.py, reached from
moe_utils.py:5863-5864), though the second test sends "native_torch" past it: the loop,
whose routing sort is a plain Triton kernel (moe_routing_triton.py:76, moe_utils.py:
2324-2327), is what it runs. The real loop also adds each expert's rows with
``index_add_`` (moe_utils.py:6217): atomics, so no plain path (the second case)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

KERNELS = """\
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def _grouped_gemm_kernel(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr, n)


@triton.jit
def _route_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def grouped_gemm(x):
    _grouped_gemm_kernel[(1,)](x, 1)
    return x


def routing_sort(x):
    _route_kernel[(1,)](x, 1)
    return x
"""

MOE = """\
import os

import torch

from pkg.kernels import grouped_gemm, routing_sort

_SELECTED = None


def _check_grouped_gemm_available():
    return torch.cuda.is_available()


def _grouped_mm_supported():
    return hasattr(torch, "_grouped_mm")


def _select_moe_backend():
    requested = os.environ.get("X_MOE_BACKEND")
    if requested:
        if requested == "grouped_mm" and _grouped_mm_supported():
            return "grouped_mm"
        if requested == "unsloth_triton" and _check_grouped_gemm_available():
            return "unsloth_triton"
        if requested == "native_torch":
            return "native_torch"
    if _grouped_mm_supported():
        return "grouped_mm"
    if _check_grouped_gemm_available():
        return "unsloth_triton"
    return "native_torch"


def select_moe_backend():
    global _SELECTED
    if _SELECTED is not None:
        return _SELECTED
    backend = _select_moe_backend()
    if not torch.compiler.is_compiling():
        _SELECTED = backend
    return backend


def _gate_up_is_interleaved(module):
    return bool(getattr(module, "interleaved", False))


def forward_native_grouped_mm(self, x):
    return torch._grouped_mm(x, self.w)


def forward_triton_grouped_gemm(self, x):
    return grouped_gemm(x)


def forward_native_moe_loop(self, x):
    order = routing_sort(x)
    out = torch.zeros_like(x)
    for expert in range(self.num_experts):
        rows = order == expert
        out[rows] = x[rows] @ self.w[expert]
    return out


def forward_moe_backend(self, x):
    backend = select_moe_backend()
    if backend == "grouped_mm":
        return forward_native_grouped_mm(self, x)
    if backend == "unsloth_triton" and not _gate_up_is_interleaved(self):
        return forward_triton_grouped_gemm(self, x)
    return forward_native_moe_loop(self, x)
"""

# The real loop's sum (moe_utils.py:6217): each expert's rows added with index_add_.
ATOMIC_LOOP = MOE.replace(
    "        out[rows] = x[rows] @ self.w[expert]\n",
    "        out.index_add_(0, rows.nonzero()[:, 0], x[rows] @ self.w[expert])\n",
)

CASES = [
    (
        "the-loop-the-dispatch-falls-through-to-runs-a-plain-triton-kernel",
        MOE,
        Role.KERNEL,
        Polarity.ENABLE,
        "native_torch",
        "each value reaches a kernel of its own, and only unset reaches autotuning: "
        "calls forward_triton_grouped_gemm (pkg/moe.py:52) -> calls grouped_gemm "
        "(pkg/kernels.py:16) -> calls _grouped_gemm_kernel (pkg/kernels.py:7) -> a list of "
        "triton.Config to tune over at pkg/kernels.py:5; X_MOE_BACKEND='native_torch', calls "
        "forward_native_moe_loop (pkg/moe.py:56) -> calls routing_sort (pkg/kernels.py:21) -> "
        "calls _route_kernel (pkg/kernels.py:12) -> @triton.jit _route_kernel at "
        "pkg/kernels.py:12, and all it alone reaches is Triton code with no hazard",
    ),
    (
        "the-loop-the-dispatch-falls-through-to-adds-atomically",
        ATOMIC_LOOP,
        Role.UNKNOWN,
        Polarity.ENABLE,
        None,
        "each value reaches a kernel of its own: unset, calls forward_triton_grouped_gemm "
        "(pkg/moe.py:52) -> calls grouped_gemm (pkg/kernels.py:16) -> calls "
        "_grouped_gemm_kernel (pkg/kernels.py:7) -> a list of triton.Config to tune over at "
        "pkg/kernels.py:5; X_MOE_BACKEND='native_torch', calls forward_native_moe_loop "
        "(pkg/moe.py:56) -> .index_add_() at pkg/moe.py:61",
    ),
]


@pytest.mark.parametrize(
    ("moe", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_returned_choice(
    tmp_path: Path,
    moe: str,
    role: Role,
    polarity: Polarity,
    off: str | None,
    reason: str,
) -> None:
    files = {"pkg/__init__.py": "", "pkg/kernels.py": KERNELS, "pkg/moe.py": moe}
    knob = scanned_knob(tmp_path, files, "X_MOE_BACKEND")
    assert role_facts(knob) == (role, polarity, off, reason)
