"""A switch whose value swaps, at one test, one entry point of a kernel library for another
of the same library, and at another test leaves a kernel for the plain path; and a kernel
looked up in a module's literal table of functions.

Each tree is a small copy, on disk, of the real code named above it (InternLM/xtuner
b934f46); it is scanned and the role, polarity, off value and evidence are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import bitwise_exports, role_facts, scanned_knob

# xtuner ops/attn_imp.py:270-274 (the table), :294-296 (the read, live, per call); the
# flash side calls flash-attn (ops/flash_attn/__init__.py), eager is plain torch.
ATTENTION = {
    "pkg/__init__.py": "",
    "pkg/attn_imp.py": (
        "import os\n\n"
        "import torch\n"
        "from flash_attn import flash_attn_varlen_func\n\n\n"
        "def eager_attention(q, k, v):\n"
        "    return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v\n\n\n"
        "def flash_attention(q, k, v):\n"
        "    return flash_attn_varlen_func(q, k, v)\n\n\n"
        "attn_impl_mapping = {\n"
        '    "eager_attention": eager_attention,\n'
        '    "flash_attention": flash_attention,\n'
        "}\n\n\n"
        "def get_attn_impl_fn(attn_impl):\n"
        '    if os.getenv("XTUNER_HF_IMPL") == "true":\n'
        "        return eager_attention\n"
        "    return attn_impl_mapping[attn_impl]\n"
    ),
}

# xtuner ops/gated_deltanet/__init__.py:22-48: the same variable read again, choosing fla's
# own entry point or the tree's custom-op wrap of fla's forward (chunk_gated_delta_rule.py:
# 10-15, :20-46).
DELTANET = {
    "pkg/gated_deltanet/__init__.py": (
        "import os\n\n"
        '_TRUTHY = {"true", "1", "yes", "on"}\n\n\n'
        "def _hf_impl_enabled() -> bool:\n"
        '    return os.getenv("XTUNER_HF_IMPL", "").strip().lower() in _TRUTHY\n\n\n'
        "def get_chunk_gated_delta_rule_fn():\n"
        "    if _hf_impl_enabled():\n"
        "        from fla.ops.gated_delta_rule import chunk_gated_delta_rule as _hf\n\n"
        "        return _hf\n"
        "    from .chunk import chunk_gated_delta_rule as _xtuner\n\n"
        "    return _xtuner\n"
    ),
    "pkg/gated_deltanet/chunk.py": (
        "import torch\n"
        "from fla.ops.gated_delta_rule.chunk import chunk_gated_delta_rule_fwd\n\n\n"
        "def chunk_gated_delta_rule(q, k, v, g, beta):\n"
        "    return chunk_gated_delta_rule_fwd(q=q, k=k, v=v, g=g, beta=beta)\n"
    ),
}

TABLE = (
    "unset, it runs the branch of `not (os.getenv('XTUNER_HF_IMPL') == 'true')` at "
    "pkg/attn_imp.py:22, which reaches calls flash_attention (pkg/attn_imp.py:11) -> "
    "FlashAttention (flash_attn.flash_attn_varlen_func) at pkg/attn_imp.py:12; "
    "XTUNER_HF_IMPL='true' leaves that branch, and what runs instead reaches no such kernel"
)
SWAPPED = (
    f"{TABLE} (but at pkg/gated_deltanet/__init__.py:11 each side calls "
    "flash-linear-attention: the code does not tell its kernels apart)"
)


@pytest.mark.parametrize(
    ("files", "reason"),
    [(ATTENTION, TABLE), ({**ATTENTION, **DELTANET}, SWAPPED)],
    ids=["table", "same-library"],
)
def test_a_value_that_leaves_a_looked_up_kernel_for_the_plain_path(
    tmp_path: Path, files: dict[str, str], reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, files, "XTUNER_HF_IMPL")
    site = next(s for s in knob.sites if s.path == "pkg/attn_imp.py")
    assert (site.line, site.column) == (22, 8)
    assert role_facts(knob) == (Role.KERNEL, Polarity.DISABLE, "false", reason)
    assert "export XTUNER_HF_IMPL='true'" in bitwise_exports(tmp_path, monkeypatch)


def test_one_library_on_each_side_alone_says_nothing(tmp_path: Path) -> None:
    """Only the test where each side calls fla: no value leaves a kernel for plain code."""
    knob = scanned_knob(tmp_path, {"pkg/__init__.py": "", **DELTANET}, "XTUNER_HF_IMPL")
    assert knob.role is Role.UNKNOWN
    assert knob.role_reason is not None
    assert knob.role_reason.startswith("each value reaches a kernel of its own: unset, ")


def test_a_table_of_calls_is_not_followed(tmp_path: Path) -> None:
    """A table whose values are not functions by name (``{"a": make()}``) picks nothing the
    reach can name: the lookup reaches no kernel."""
    files = dict(ATTENTION)
    files["pkg/attn_imp.py"] = files["pkg/attn_imp.py"].replace(
        '    "flash_attention": flash_attention,\n', '    "flash_attention": flash_attention(),\n'
    )
    knob = scanned_knob(tmp_path, files, "XTUNER_HF_IMPL")
    assert knob.role is not Role.KERNEL


# modelscope/ms-swift swift/utils/env.py:12-13 and swift/utils/hub_utils.py:192-233: unset
# loads the Hub kernel through the kernels package (and falls back to transformers' loader),
# USE_HF=1 through transformers' loader alone.
HUB = {
    "swift/__init__.py": "",
    "swift/env.py": (
        "import os\n"
        "from distutils.util import strtobool\n\n\n"
        "def use_hf_hub():\n"
        "    return strtobool(os.environ.get('USE_HF', '0'))\n"
    ),
    "swift/hub_utils.py": (
        "from swift.env import use_hf_hub\n\n\n"
        "def patch_kernels():\n"
        "    from kernels import get_local_kernel\n"
        "    from transformers.integrations import hub_kernels\n\n"
        "    origin_get_kernel = hub_kernels.get_kernel\n\n"
        "    def patched_get_kernel(repo_id, *args, **kwargs):\n"
        "        if use_hf_hub():\n"
        "            return origin_get_kernel(repo_id, *args, **kwargs)\n"
        "        try:\n"
        "            return get_local_kernel(repo_id, repo_id)\n"
        "        except Exception:\n"
        "            return origin_get_kernel(repo_id, *args, **kwargs)\n\n"
        "    hub_kernels.get_kernel = patched_get_kernel\n"
    ),
}


def test_a_side_that_calls_a_library_the_other_does_not_is_no_swap(tmp_path: Path) -> None:
    """Unset calls the kernels package and transformers' loader, USE_HF=1 transformers'
    alone: a choice between libraries, not one library on each side (on main's code too)."""
    knob = scanned_knob(tmp_path, HUB, "USE_HF")
    assert knob.role is not Role.KERNEL


# sgl-project/sglang srt/layers/attention/aiter_backend.py:103-106, :443-444, :2542, :3851-3865:
# unset (on gfx95) builds the FP8 prefill's metadata with AITER and runs AITER's FP8 prefill;
# '0' runs AITER's bf16 flash attention: one library each side, and the name says FP8.
FP8 = {
    "pkg/__init__.py": "",
    "pkg/backend.py": (
        "import os\n\n"
        "from aiter import flash_attn_varlen_func, get_ps_metadata_info_v1, mla_prefill_asm\n\n"
        '_use_fp8_prefill_attn = os.environ.get("SGLANG_AITER_FP8_PREFILL_ATTN", "1") != "0"\n\n\n'
        "class Backend:\n"
        "    def __init__(self):\n"
        "        self.use_fp8_prefill_attn = _use_fp8_prefill_attn\n\n"
        "    def init_metadata(self, batch):\n"
        "        prefill_ps_metadata = None\n"
        "        if self.use_fp8_prefill_attn:\n"
        "            prefill_ps_metadata = get_ps_metadata_info_v1(batch)\n"
        "        self.meta = prefill_ps_metadata\n\n"
        "    def forward(self, q, k, v):\n"
        "        if self.use_fp8_prefill_attn:\n"
        "            return mla_prefill_asm(q, k, v, self.meta)\n"
        "        return flash_attn_varlen_func(q, k, v)\n"
    ),
}


def test_one_library_each_side_is_no_kill_switch_of_a_precision(tmp_path: Path) -> None:
    """'0' leaves the FP8 metadata's AITER call, but at the attention itself it still runs
    AITER's kernel: no kill switch, so the FP8 in the name keeps it a person's."""
    knob = scanned_knob(tmp_path, FP8, "SGLANG_AITER_FP8_PREFILL_ATTN")
    assert knob.role is not Role.KERNEL
