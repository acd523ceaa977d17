"""A switch that leaves a kernel for code whose only kernel of its own sits behind another
kernel switch's test, which that switch's off value never passes: with both off, the first
leaves its kernel for code that reaches none.

Each tree is a small copy, on disk, of the real code named above it (predibase/lorax
a7394ba); it is scanned and the role, polarity, off value and evidence are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import KERNEL, bitwise_exports, role_facts, scanned_knob

# server/lorax_server/utils/punica.py:20-23, :42-43: DISABLE_SGMV read into a module flag that
# a predicate returns; the legacy kernels (here a Triton kernel of the tree).
FAST = """\
import os

import triton
import triton.language as tl

HAS_FAST = not bool(int(os.environ.get("PKG_DISABLE_FAST", "0")))


def has_fast() -> bool:
    return HAS_FAST


@triton.jit
def _add_kernel(x_ptr, n):
    tl.store(x_ptr, n)


def fast_add(x):
    _add_kernel[(1,)](x, 1)
    return x
"""

# utils/layers.py:79-180: the Triton branch (its kernel chosen by the stage, prefill or
# decode: utils/punica.py:637-656), ``elif has_sgmv() and can_vectorize:`` (the legacy
# kernels), else plain torch.
LAYERS = """\
import os

import torch

from pkg.decode import fused_decode
from pkg.fast import fast_add, has_fast
from pkg.kernels import fused_rms_norm

TRITON_DISABLED = bool(int(os.environ.get("PKG_TRITON_DISABLED", "0")))


def forward(x, can_vectorize, big, prefill):
    if not TRITON_DISABLED and can_vectorize:
        shrink = fused_rms_norm if prefill else fused_decode
        return shrink(x)
    elif has_fast() and can_vectorize:
        return fast_add(x)
    else:
        return torch.matmul(x, x)
"""

TREE = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/fast.py": FAST,
    "pkg/decode.py": KERNEL.replace("fused_rms_norm", "fused_decode"),
    "pkg/layers.py": LAYERS,
}

PARTNERED = (
    "unset, it runs the branch of `not TRITON_DISABLED and can_vectorize` at "
    "pkg/layers.py:13, which reaches calls fused_decode (pkg/decode.py:10) -> calls "
    "_fwd_kernel (pkg/decode.py:6) -> @triton.jit _fwd_kernel at pkg/decode.py:6; "
    "PKG_TRITON_DISABLED='1' leaves that branch, and what runs instead reaches no such kernel "
    "once PKG_DISABLE_FAST='1' (a kernel switch too) leaves the branch of `has_fast() and "
    "can_vectorize` at pkg/layers.py:16, where it reaches a kernel of its own"
)


def test_the_kernel_run_instead_is_left_by_another_kernel_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, TREE, "PKG_TRITON_DISABLED")
    assert role_facts(knob) == (Role.KERNEL, Polarity.DISABLE, "0", PARTNERED)
    exported = bitwise_exports(tmp_path, monkeypatch)
    assert "export PKG_TRITON_DISABLED='1'" in exported
    assert "export PKG_DISABLE_FAST='1'" in exported


# The other switch's off value does not always leave that branch (``big`` passes it too): the
# value may still reach a kernel of its own there, and nothing says it leaves every kernel.
LOOSE = {**TREE, "pkg/layers.py": LAYERS.replace("elif has_fast()", "elif (has_fast() or big)")}


def test_a_kernel_the_other_switch_does_not_always_leave_is_no_partner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, LOOSE, "PKG_TRITON_DISABLED")
    assert "PKG_DISABLE_FAST" not in (knob.role_reason or "")
    assert "export PKG_TRITON_DISABLED='1'" not in bitwise_exports(tmp_path, monkeypatch)
