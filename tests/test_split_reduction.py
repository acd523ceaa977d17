"""A reduction split in parts the run counts (scanner/reach/split_reduction.py): a hazard
one side of a kernel choice reaches, which makes the other side the bitwise choice.

Each tree is written in the shape of the real code named above it and scanned; the role,
polarity, off value and the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

# vllm-project/vllm 0.33.0, vllm/models/inkling/amd/ops/rel_attention_decode.py:40-66,68,229,
# 300-402 and fa4_rel_attention.py:387-420: the split-KV decode writes a partial output per
# split (its count from the batch's longest KV, decode_split_count) and a second kernel
# combines them; "0" runs the single-pass kernel.
SPLIT_KV = """\
import os

import torch
import triton
import triton.language as tl


def split_count(max_kv_len):
    return min(32, max(1, triton.cdiv(max_kv_len, 2048)))


def use_split_kv(max_kv_len):
    if os.getenv("X_SPLIT_KV", "1") != "1":
        return False
    return max_kv_len >= 8192


@triton.jit
def _stage1(q_ptr, mid_ptr, splits: tl.constexpr):
    tl.store(mid_ptr + tl.program_id(2), tl.load(q_ptr))


@triton.jit
def _stage2(mid_ptr, out_ptr, splits: tl.constexpr):
    tl.store(out_ptr, tl.load(mid_ptr))


@triton.jit
def _single_kernel(q_ptr, out_ptr):
    tl.store(out_ptr, tl.load(q_ptr))


def split_decode(q, out, max_kv_len):
    splits = COUNT
    mid = torch.empty(q.shape[0], q.shape[1], splits, dtype=torch.float32, device=q.device)
    grid = (q.shape[0], q.shape[1], splits)
    _stage1[grid](q, mid, splits=splits)
    _stage2[(q.shape[0], q.shape[1])](mid, out, splits=splits)
    return out


def decode(q, out, max_kv_len):
    if use_split_kv(max_kv_len):
        return split_decode(q, out, max_kv_len)
    _single_kernel[(q.shape[0],)](q, out)
    return out
"""

# ROCm/aiter e404860, ops/triton/_triton_kernels/chunk_delta_attn/flash_kda.py:73-75,612-643,
# 706-915 and chunk_fwd.py:128-173: both pipelines autotune; the fused one cuts each sequence
# in segments whose count it chooses from the device's CU count and the batch
# (_choose_chunks_per_seg, _build_segments), scans them apart (pass A, looping over two
# buffers) and combines them (pass B), then runs each segment from its state (pass C).
SEGMENTS = """\
import functools

import torch
import triton
import triton.language as tl

CONFIGS = [triton.Config({"BW": 32}), triton.Config({"BW": 64})]


@functools.cache
def _num_cus():
    return torch.cuda.get_device_properties(0).multi_processor_count


def _chunks_per_seg(n_chunks, n_seqs):
    if 2 * n_seqs >= _num_cus():
        return n_chunks
    return min(64, n_chunks // 16)


def _segments(n_chunks, per_seg):
    count = max(1, triton.cdiv(n_chunks, per_seg))
    return count, count


@triton.autotune(configs=CONFIGS, key=["H"])
@triton.jit
def _segment_kernel(v_ptr, h_out, H, BW: tl.constexpr):
    tl.store(h_out, tl.load(v_ptr))


@triton.jit
def _scan_kernel(a_seg, b_seg, h_in):
    tl.store(h_in, tl.load(a_seg) + tl.load(b_seg))


@triton.autotune(configs=CONFIGS, key=["H"])
@triton.jit
def _output_kernel(v_ptr, o_ptr, H, BW: tl.constexpr):
    tl.store(o_ptr, tl.load(v_ptr))


def fused_fwd(v, n_chunks, n_seqs, H):
    per_seg = _chunks_per_seg(n_chunks, n_seqs)
    num_segs, max_segs = _segments(n_chunks, per_seg)
    if max_segs > 1:
        b_seg = torch.empty(num_segs, H, dtype=torch.float32, device=v.device)
        a_seg = torch.empty(num_segs, H, dtype=torch.bfloat16, device=v.device)
        for buf, width in ((b_seg, 1), (a_seg, 2)):
            _segment_kernel[lambda meta, _w=width: (triton.cdiv(_w, meta["BW"]), num_segs * H)](
                v, h_out=buf, H=H
            )
        h_in = torch.empty(num_segs, H, dtype=torch.float32, device=v.device)
        _scan_kernel[(1, n_seqs * H)](a_seg=a_seg, b_seg=b_seg, h_in=h_in)
    _segment_kernel[lambda meta: (triton.cdiv(H, meta["BW"]), num_segs * H)](v, h_out=v, H=H)
    return v


def pipeline_fwd(v, H):
    _output_kernel[(1,)](v, v, H=H)
    return v
"""
CHUNK = """\
import os

from pkg.kda import fused_fwd, pipeline_fwd

USE_FUSED = os.getenv("X_USE_FLASH_KDA", "1").lower() in ("1", "true", "yes", "on")


def chunk_fwd(v, n_chunks, n_seqs, H, supported):
    if USE_FUSED and supported:
        return fused_fwd(v, n_chunks, n_seqs, H)
    return pipeline_fwd(v, H)
"""

# vllm-project/vllm 0.33.0, vllm/models/inkling/amd/ops/fa4_rel_attention.py:36,54 and
# gluon/rel_mha_decode_gfx950.py:703-930: the Gluon decode splits too, its count kept on a
# config object the launcher makes from the batch (get_config -> _select_num_kv_splits).
GLUON = """\
import dataclasses

import torch
import triton
import triton.language as tl


@dataclasses.dataclass
class Config:
    num_heads: int
    num_splits: int


def get_config(q, max_len):
    return Config(q.shape[1], min(32, max(1, q.shape[0] * max_len // 4096)))


@triton.jit
def _decode_kernel(q_ptr, mid_ptr):
    tl.store(mid_ptr + tl.program_id(2), tl.load(q_ptr))


@triton.jit
def _reduce_kernel(mid_ptr, out_ptr):
    tl.store(out_ptr, tl.load(mid_ptr))


def gluon_decode(q, out, max_len):
    config = get_config(q, max_len)
    total_q = q.shape[0]
    mid = torch.empty((total_q, config.num_heads, config.num_splits), device=q.device)
    grid = (total_q, config.num_heads, config.num_splits)
    _decode_kernel[grid](q, mid)
    reduce_grid = (total_q, config.num_heads)
    _reduce_kernel[reduce_grid](mid, out)
    return out
"""
ATTN = """\
import os

from pkg.decode import decode
from pkg.gluon import gluon_decode


def attention(q, out, max_len):
    if os.getenv("X_GLUON", "1") == "1":
        return gluon_decode(q, out, max_len)
    return decode(q, out, max_len)
"""


def _split_kv(count: str) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/decode.py": SPLIT_KV.replace("COUNT", count)}


# vllm-project/vllm 0.33.0, vllm/v1/worker/gpu/spec_decode/acceptance_estimator.py:466 (triton
# through vllm/triton_utils): a count from triton.cdiv, re-exported by a package of the tree,
# is the reduced size, not a function of the tree choosing it.
REEXPORTED = {
    **_split_kv("triton.cdiv(q.shape[2], 128)"),
    "pkg/triton_utils.py": "import triton\nimport triton.language as tl\n",
}
REEXPORTED["pkg/decode.py"] = REEXPORTED["pkg/decode.py"].replace(
    "import triton\n", "from pkg.triton_utils import triton\n", 1
)
# flagos-ai/FlagGems, src/flag_gems/ops/vector_norm.py:270-290: the count is the size of a
# tensor a function of the tree reshaped (dim_compress), which does not choose it.
RESHAPED = {
    **_split_kv("triton.cdiv(flat(q).numel(), 128)"),
    "pkg/shapes.py": "def flat(x):\n    return x.reshape(-1)\n",
}
RESHAPED["pkg/decode.py"] = RESHAPED["pkg/decode.py"].replace(
    "import triton.language as tl\n", "import triton.language as tl; from pkg.shapes import flat\n"
)


SPLIT_KV_REASON = (
    "each value reaches a kernel of its own, and only unset reaches a split reduction: calls "
    "split_decode (pkg/decode.py:33) -> _stage1 writes mid in splits parts, _stage2 combines "
    "them (splits from split_count()) at pkg/decode.py:37; X_SPLIT_KV='0', calls "
    "_single_kernel (pkg/decode.py:29) -> @triton.jit _single_kernel at pkg/decode.py:29, and "
    "all it alone reaches is Triton code with no hazard"
)
EACH_OWN = (
    "each value reaches a kernel of its own: unset, calls split_decode (pkg/decode.py:33) -> "
    "calls _stage1 (pkg/decode.py:19) -> @triton.jit _stage1 at pkg/decode.py:19; "
    "X_SPLIT_KV='0', calls _single_kernel (pkg/decode.py:29) -> @triton.jit _single_kernel at "
    "pkg/decode.py:29"
)

# unslothai/unsloth, unsloth/kernels/fp8.py:55-83: a decorator that registers the function it
# wraps as an op of the tree's own namespace (``lib.impl(name, fn, ...)``) and hands Dynamo a
# lambda that calls the op (``getattr(torch.ops.unsloth, name)``): the op is the function.
OPAQUE = """\
import torch

_lib = None


def _opaque_under_compile(name, fake):
    def decorator(fn):
        global _lib
        try:
            if _lib is None:
                _lib = torch.library.Library("pkg", "FRAGMENT")
            _lib.define(name + torch.library.infer_schema(fn, mutates_args=()))
            _lib.impl(name, fn, "CompositeExplicitAutograd")
            torch._dynamo.substitute_in_graph(fn)(
                lambda *args, **kwargs: getattr(torch.ops.pkg, name)(*args, **kwargs)
            )
        except RuntimeError:
            pass
        return fn

    return decorator
"""
# unslothai/unsloth, unsloth/kernels/nvfp4.py:76-172, 410-470, 522-584, 606-671: the read kept
# in a module tuple; "auto" and "1" take the fused Triton GEMM, whose split count a config
# function chooses from the rows and the SM count (:546-555), called through a module name
# bound to it (_CONFIG_HOOK, :658); the split buffer is allocated by a helper (_split_out,
# :564-569) and the parts summed by another (_split_sum, :572-580); "0" dequantizes with an
# elementwise Triton kernel (behind the decorator above) and multiplies with torch.matmul.
NVFP4 = """\
import functools
import os

import torch
import triton
import triton.language as tl

from pkg.fp8 import _opaque_under_compile


@triton.jit
def _dequant_kernel(packed_ptr, out_ptr):
    tl.store(out_ptr, tl.load(packed_ptr))


@_opaque_under_compile("dequant", lambda packed: packed.new_empty(packed.shape))
def _dequantize_triton(packed: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(packed)
    _dequant_kernel[(packed.numel(),)](packed, out)
    return out


def dequantize(packed):
    if packed.device.type in ("cuda", "xpu"):
        return _dequantize_triton(packed.contiguous())
    return packed.float()


def _read_fused_env():
    return os.environ.get("X_NVFP4_FUSED", "auto").strip().lower(), None


_FUSED_ENV = None


def _fused_env():
    global _FUSED_ENV
    if _FUSED_ENV is None:
        _FUSED_ENV = _read_fused_env()
    return _FUSED_ENV


_FUSED_OFF = ("0", "false", "off", "no")
_FUSED_FORCE = ("1", "true", "on", "yes", "force")


def _fused_ok(A, packed):
    mode, rows = _fused_env()
    if mode in _FUSED_OFF or not A.is_cuda:
        return False
    if mode not in _FUSED_FORCE:
        if A.shape[0] > 64:
            return False
    return A.dtype in (torch.float16, torch.bfloat16) and packed.dim() == 2


@functools.lru_cache(maxsize=None)
def _sm_count(index):
    return torch.cuda.get_device_properties(index).multi_processor_count


def _fused_config(M, n_out, k_red, device):
    tiles = triton.cdiv(M, 64) * triton.cdiv(n_out, 64)
    split = 1
    while tiles * split < 4 * _sm_count(device.index or 0) and split < 16:
        split *= 2
    return 64, 64, 128, split


@triton.jit
def _split_sum_kernel(partial_ptr, out_ptr, numel, SPLIT: tl.constexpr):
    tl.store(out_ptr, tl.load(partial_ptr))


def _split_out(M, n_out, split, dtype, device):
    out = torch.empty((M, n_out), dtype=dtype, device=device)
    if split == 1:
        return out, out, 0
    partial = torch.empty((split, M, n_out), dtype=torch.float32, device=device)
    return out, partial, partial.stride(0)


def _split_sum(partial, out):
    if partial is out:
        return out
    numel = out.numel()
    _split_sum_kernel[(triton.cdiv(numel, 1024),)](partial, out, numel, SPLIT=partial.shape[0])
    return out


@triton.jit
def _matmul_fwd_kernel(x_ptr, w_ptr, out_ptr, stride_s):
    tl.store(out_ptr + tl.program_id(1) * stride_s, tl.load(x_ptr) * tl.load(w_ptr))


def _matmul_fwd_fused(X, packed):
    M, N, K = X.shape[0], packed.shape[0], X.shape[1]
    BM, BN, BK, split = _CONFIG_HOOK(M, N, K, X.device)
    Y, buf, stride_s = _split_out(M, N, split, X.dtype, X.device)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), split)
    _matmul_fwd_kernel[grid](X, packed, buf, stride_s)
    Y = _split_sum(buf, Y)
    return Y


_CONFIG_HOOK = _fused_config


def matmul_fwd(X, packed):
    if _fused_ok(X, packed):
        return _matmul_fwd_fused(X, packed)
    return torch.matmul(X, dequantize(packed).t())
"""

CASES: list[tuple[str, dict[str, str], str, Role, Polarity, str | None, str]] = [
    (
        "a-split-kv-whose-count-the-batch-sets",
        _split_kv("split_count(max_kv_len)"),
        "X_SPLIT_KV",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        SPLIT_KV_REASON,
    ),
    (
        "a-split-in-a-count-the-code-fixes-is-no-hazard",
        _split_kv("4"),
        "X_SPLIT_KV",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        EACH_OWN,
    ),
    (
        "a-split-the-reduced-size-alone-sets-is-no-hazard",
        _split_kv("triton.cdiv(q.shape[2], 128)"),
        "X_SPLIT_KV",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        EACH_OWN,
    ),
    (
        "a-count-from-triton-re-exported-by-the-tree-is-no-choice",
        REEXPORTED,
        "X_SPLIT_KV",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        EACH_OWN,
    ),
    (
        "a-count-from-the-size-of-a-tensor-the-tree-made-is-no-choice",
        RESHAPED,
        "X_SPLIT_KV",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        EACH_OWN,
    ),
    (
        "a-split-whose-count-an-object-keeps-beside-a-split-on-the-other-side",
        {**_split_kv("split_count(max_kv_len)"), "pkg/gluon.py": GLUON, "pkg/attn.py": ATTN},
        "X_GLUON",
        Role.UNKNOWN,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own: unset, calls gluon_decode (pkg/gluon.py:28) -> "
        "_decode_kernel writes mid in config.num_splits parts, _reduce_kernel combines them "
        "(config.num_splits from get_config()) at pkg/gluon.py:33; X_GLUON='0', calls decode "
        "(pkg/decode.py:42) -> calls _single_kernel (pkg/decode.py:29) -> @triton.jit "
        "_single_kernel at pkg/decode.py:29",
    ),
    (
        "segments-whose-count-the-device-sets-beside-autotuning-on-both-sides",
        {"pkg/__init__.py": "", "pkg/kda.py": SEGMENTS, "pkg/chunk.py": CHUNK},
        "X_USE_FLASH_KDA",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own, and only unset reaches a split reduction: "
        "calls fused_fwd (pkg/kda.py:43) -> _segment_kernel writes b_seg in num_segs parts, "
        "_scan_kernel combines them (num_segs from _segments()) at pkg/kda.py:50; "
        "X_USE_FLASH_KDA='0', calls pipeline_fwd (pkg/kda.py:59) -> calls _output_kernel "
        "(pkg/kda.py:39) -> triton.autotune at pkg/kda.py:37, and all it alone reaches is "
        "Triton code and autotuning, which unset reaches too",
    ),
    (
        "a-split-whose-buffer-and-sum-are-in-helpers-beside-a-dequantize-and-matmul",
        {"pkg/__init__.py": "", "pkg/fp8.py": OPAQUE, "pkg/nvfp4.py": NVFP4},
        "X_NVFP4_FUSED",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "each value reaches a kernel of its own, and only unset reaches a split reduction: "
        "calls _matmul_fwd_fused (pkg/nvfp4.py:96) -> _matmul_fwd_kernel writes buf in split "
        "parts, _split_sum() combines them (split from _CONFIG_HOOK()) at pkg/nvfp4.py:101; "
        "X_NVFP4_FUSED='0', calls dequantize (pkg/nvfp4.py:23) -> calls _dequantize_triton "
        "(pkg/nvfp4.py:17) -> calls _dequant_kernel (pkg/nvfp4.py:12) -> @triton.jit "
        "_dequant_kernel at pkg/nvfp4.py:12, and all it alone reaches is Triton code with no "
        "hazard",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_split_reduction(
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
