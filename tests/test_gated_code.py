"""The code a knob gates (scanner.gated): the units of its site, of its branches and of what they
reach, each on the shape of the real code it stands for."""

from __future__ import annotations

from pathlib import Path

from scanner import Settings, scan
from scanner.code_units import Unit
from scanner.gated import GatedUnit, gated_code, units_now
from tests.conftest import write_tree

# Primus's hyper-connection glue (AMD-AGI/Primus@fd1eeab,
# primus/backends/megatron/core/transformer/v4_attention_kernels/_triton_common/hc_glue.py:573
# `is_triton_path_enabled`, :599 `hc_glue_compute_tail_triton`, the autograd Function
# `HCComputeTailFn` with a Triton kernel per pass), and its caller
# (hyper_connection.py:329, `HyperMixer.compute_weights`), reduced.
GLUE = """
import os

import torch
import triton
import triton.language as tl


@triton.jit
def _tail_fwd_kernel(X, Y, n):
    offsets = tl.arange(0, 16)
    tl.store(Y + offsets, tl.load(X + offsets) * 2)


@triton.jit
def _tail_bwd_kernel(DY, DX, n):
    offsets = tl.arange(0, 16)
    tl.atomic_add(DX + offsets, tl.load(DY + offsets))


class TailFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        _tail_fwd_kernel[(1,)](x, y, x.numel())
        return y

    @staticmethod
    def backward(ctx, dy):
        dx = torch.zeros_like(dy)
        _tail_bwd_kernel[(1,)](dy, dx, dy.numel())
        return dx


def is_triton_path_enabled() -> bool:
    return os.environ.get("PRIMUS_HC_TRITON", "1") != "0"


def tail_triton(x):
    return TailFn.apply(x)


def unrelated(x):
    return x
"""
MIXER = """
from pkg.glue import is_triton_path_enabled as _glue_enabled
from pkg.glue import tail_triton


def _eager_tail(x):
    return x * 2


class Mixer:
    def compute_weights(self, x):
        if _glue_enabled():
            return tail_triton(x)
        return _eager_tail(x)

    def other(self, x):
        return x
"""

# The example's lazy import (examples/toymodel/layers.py:27 `_triton_kernels`): the kernels'
# module is imported only when a Triton path runs, and called through what it returns.
LAZY = """
import importlib
import os


def _kernels():
    return importlib.import_module("pkg.kernels")


def rmsnorm(x):
    if os.environ.get("TOY_RMSNORM_TRITON", "1") != "0":
        return _kernels().rmsnorm_fwd(x)
    return x
"""
KERNELS = """
import triton


@triton.jit
def _rmsnorm_fwd_kernel(X):
    pass


def rmsnorm_fwd(x):
    _rmsnorm_fwd_kernel[(1,)](x)
    return x
"""


def units(tmp_path: Path, files: dict[str, str], name: str) -> list[tuple[str, str, int]]:
    write_tree(tmp_path, files)
    result = scan([tmp_path / "pkg"], Settings(), root=tmp_path)
    return [(u.path, u.name, u.line) for u in gated_code(result, tmp_path, [name])[name]]


def test_the_site_the_branch_and_every_kernel_a_branch_reaches(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/glue.py": GLUE, "pkg/mixer.py": MIXER}
    assert units(tmp_path, files, "PRIMUS_HC_TRITON") == [
        ("pkg/glue.py", "_tail_fwd_kernel", 9),  # through TailFn.apply: forward
        ("pkg/glue.py", "_tail_bwd_kernel", 15),  # and backward
        ("pkg/glue.py", "TailFn.forward", 22),
        ("pkg/glue.py", "TailFn.backward", 28),
        ("pkg/glue.py", "is_triton_path_enabled", 34),  # the site
        ("pkg/glue.py", "tail_triton", 38),
        ("pkg/mixer.py", "_eager_tail", 5),  # the other side of the branch
        ("pkg/mixer.py", "Mixer.compute_weights", 10),  # the branch
    ]


def test_a_kernel_module_imported_lazily_is_reached(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/layers.py": LAZY, "pkg/kernels.py": KERNELS}
    assert units(tmp_path, files, "TOY_RMSNORM_TRITON") == [
        ("pkg/kernels.py", "_rmsnorm_fwd_kernel", 5),
        ("pkg/kernels.py", "rmsnorm_fwd", 9),
        ("pkg/layers.py", "_kernels", 5),
        ("pkg/layers.py", "rmsnorm", 9),
    ]


def test_a_knob_no_code_reads_has_no_units(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pkg/glue.py": GLUE})
    result = scan([tmp_path / "pkg"], Settings(), root=tmp_path)
    assert gated_code(result, tmp_path, ["NOT_READ"]) == {}


def test_units_now_reads_each_unit_as_the_files_hold_it(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/glue.py": GLUE, "pkg/mixer.py": MIXER}
    write_tree(tmp_path, files)
    result = scan([tmp_path / "pkg"], Settings(), root=tmp_path)
    gated = gated_code(result, tmp_path, ["PRIMUS_HC_TRITON"])["PRIMUS_HC_TRITON"]
    recorded = {u.name: u for u in gated if u.path == "pkg/glue.py"}
    edited = GLUE.replace("tl.atomic_add(DX + offsets", "tl.store(DX + offsets")
    write_tree(tmp_path, {"pkg/glue.py": edited.replace("def unrelated", "def renamed")})
    now = units_now(tmp_path, {"pkg/glue.py": [*recorded, "unrelated"], "gone.py": ["f"]})
    changed = {n for n, u in recorded.items() if now[("pkg/glue.py", n)] != _unit(u)}
    assert changed == {"_tail_bwd_kernel"}
    assert now[("pkg/glue.py", "unrelated")] is None and now[("gone.py", "f")] is None


def _unit(gated: GatedUnit) -> Unit:
    return Unit(gated.name, gated.line, gated.digest)
