"""Code that runs in a kernel branch's place and calls a function of an object its caller
hands in is code the reach cannot read: the value is not shown to leave the kernel
(scanner.reach.handed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role
from tests.scanned import KERNEL, scanned_knob

# unsloth_zoo temporary_patches/moe_utils_sonic.py:345-358: unset, `not tune` runs the pinned
# custom op (:311-333), which calls get_sonic_module (:162) -> kernels.get_kernel (:200);
# "1" runs `module.functional.gemm(..., tuned=True)` (:354), `module` being the sonic kernel
# module the caller loaded and handed in: its autotuned GEMM, which the reach cannot see.
SONIC = {
    "pkg/__init__.py": "",
    "pkg/sonic.py": (
        "import os\n\nimport torch\n\n_OPS = None\n\n\n"
        "def get_sonic_module():\n"
        "    from kernels import get_kernel\n\n"
        '    return get_kernel("org/sonic-moe")\n\n\n'
        "def _pinned_ops():\n"
        "    global _OPS\n"
        "    if _OPS is not None:\n"
        "        return _OPS\n\n"
        '    @torch.library.custom_op("pkg_sonic::gemm", mutates_args=())\n'
        "    def gemm_op(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:\n"
        "        return get_sonic_module().gemm(A, B)\n\n"
        "    _OPS = (gemm_op,)\n"
        "    return _OPS\n\n\n"
        "def _env_flag(name, default):\n"
        '    return os.environ.get(name, default) == "1"\n\n\n'
        "def sonic_gemm(module, A, B, concat_b=False):\n"
        '    tune = (not concat_b) and _env_flag("PKG_SONIC_GEMM_TUNED", "0")\n'
        "    if not tune:\n"
        "        return _pinned_ops()[0](A, B)\n"
        "    out = A.new_empty((A.shape[0], B.shape[-1]))\n"
        "    return module.functional.gemm(A, B, out=out, tuned=True)\n"
    ),
}


def test_a_function_of_a_module_handed_in_is_not_plain(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, SONIC, "PKG_SONIC_GEMM_TUNED")
    assert knob.role is Role.UNKNOWN, knob.role_reason
    assert knob.role_reason is not None
    assert "module.functional.gemm (pkg/sonic.py:36)" in knob.role_reason
    assert "a function of an object its caller hands in" in knob.role_reason


# What runs instead asks the object handed in a question, or calls a method of a tensor or
# of a parameter of a named type: sglang srt/models/lfm2_moe.py:372
# (`forward_batch.forward_mode.is_decode()`), layers/attention/dsa/dsa_topk_backend.py:241
# (`attn_metadata.page_table_1.contiguous()`).
PLAIN = {
    "a-library-call": ("def sonic_gemm(module,", "torch.matmul(A, B, out=out)"),
    "a-question-asked-of-it": (
        "def sonic_gemm(module,",
        "torch.matmul(A, B, out=out) if module.mode.is_decode() else out",
    ),
    "an-annotated-parameter": (
        "def sonic_gemm(module: torch.nn.Module,",
        "module.functional.gemm(A, B, out=out, tuned=True)",
    ),
}


@pytest.mark.parametrize("case", sorted(PLAIN))
def test_what_is_no_code_handed_in_is_plain(tmp_path: Path, case: str) -> None:
    head, call = PLAIN[case]
    files = dict(SONIC)
    files["pkg/sonic.py"] = (
        files["pkg/sonic.py"]
        .replace("module.functional.gemm(A, B, out=out, tuned=True)", call)
        .replace("def sonic_gemm(module,", head)
    )
    knob = scanned_knob(tmp_path, files, "PKG_SONIC_GEMM_TUNED")
    assert knob.role is Role.KERNEL, knob.role_reason
    assert "PKG_SONIC_GEMM_TUNED='1' leaves that branch" in (knob.role_reason or "")


# The same through an attribute of the object bound in __init__ to what it was handed
# (`self.q_norm = q_norm`, then `self.q_norm(x)` where the default runs a Triton kernel).
HELD = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": (
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\ndef _fwd_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "def fused_qk_norm(x):\n    _fwd_kernel[(1,)](x, 1)\n    return x\n"
    ),
    "pkg/attn.py": (
        "import os\n\nfrom pkg.kernels import fused_qk_norm\n\n\n"
        "class Attention:\n"
        "    def __init__(self, q_norm):\n"
        "        self.q_norm = q_norm\n\n"
        "    def forward(self, q):\n"
        '        if os.environ.get("PKG_FUSED_QK_NORM", "1") == "1":\n'
        "            return fused_qk_norm(q)\n"
        "        return self.q_norm(q)\n"
    ),
}


def test_an_attribute_bound_to_what_init_was_handed_is_not_plain(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, HELD, "PKG_FUSED_QK_NORM")
    assert knob.role is Role.UNKNOWN, knob.role_reason
    assert "self.q_norm (pkg/attn.py:13)" in (knob.role_reason or "")


def _overlap_tree(chain: int) -> dict[str, str]:
    """lmdeploy pytorch/models/hy3.py:259-278: unset, the serial path calls the experts;
    '1' calls `_forward_experts_overlap` (:201), which calls the same experts one call
    deeper (:222); the experts reach a Triton kernel ``chain`` calls down (7: the last
    call within the depth on the serial path, beyond it on the other)."""
    steps = "".join(
        f"def _e{n}(h):\n    return _e{n + 1}(h)\n\n\n" for n in range(1, chain)
    ).replace(f"_e{chain}(h)", "fused_rms_norm(h)")
    return {
        "pkg/__init__.py": "",
        "pkg/kernels.py": KERNEL,
        "pkg/moe.py": (
            "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
            "def forward(h):\n"
            '    if os.environ.get("PKG_SHARED_EXPERT_OVERLAP", "0") == "1":\n'
            "        out = _forward_overlap(h)\n"
            "    else:\n"
            "        out = _e1(h)\n"
            "    return out\n\n\n"
            "def _forward_overlap(h):\n    return _e1(h)\n\n\n" + steps
        ),
    }


def test_the_same_call_one_deeper_is_not_shown_to_leave_the_kernel(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, _overlap_tree(7), "PKG_SHARED_EXPERT_OVERLAP")
    assert knob.role is Role.UNKNOWN, knob.role_reason
    assert "runs code that calls _e1 too, which is on the way to that kernel" in (
        knob.role_reason or ""
    )


def test_the_same_call_within_the_depth_reaches_the_kernel_on_both_sides(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, _overlap_tree(2), "PKG_SHARED_EXPERT_OVERLAP")
    assert knob.role is not Role.KERNEL, knob.role_reason


def _held_overlap_tree(chain: int) -> dict[str, str]:
    """The same, the experts an attribute bound in ``__init__`` to what a factory builds
    (lmdeploy hy3.py:153 `self.experts = build_fused_moe(...)`; :261-278 and :222)."""
    steps = "".join(
        f"def _e{n}(h):\n    return _e{n + 1}(h)\n\n\n" for n in range(1, chain)
    ).replace(f"_e{chain}(h)", "fused_rms_norm(h)")
    return {
        "pkg/__init__.py": "",
        "pkg/kernels.py": KERNEL,
        "pkg/moe.py": (
            "import os\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
            "class Moe:\n"
            "    def __init__(self):\n"
            "        self.experts = _e1(None)\n\n"
            "    def forward(self, h):\n"
            '        if os.environ.get("PKG_SHARED_EXPERT_OVERLAP", "0") == "1":\n'
            "            out = self._forward_overlap(h)\n"
            "        else:\n"
            "            out = self.experts(h)\n"
            "        return out\n\n"
            "    def _forward_overlap(self, h):\n"
            "        return self.experts(h)\n\n\n" + steps
        ),
    }


def test_the_same_attribute_called_one_deeper_is_not_shown_to_leave_the_kernel(
    tmp_path: Path,
) -> None:
    knob = scanned_knob(tmp_path, _held_overlap_tree(6), "PKG_SHARED_EXPERT_OVERLAP")
    assert knob.role is Role.UNKNOWN, knob.role_reason
    assert "runs code that calls Moe.experts too, which is on the way to that kernel" in (
        knob.role_reason or ""
    )
