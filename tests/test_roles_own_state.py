"""Gates that reach a kernel and are no kernel choice: each a small tree in the shape of the
real code it stands for (the file it was read from is named above it), scanned; the role
and the whole reason are checked, with a twin that stays a kernel choice beside each."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Role
from tests.scanned import scanned_knob

# unsloth 2026.10.9, models/vision.py:4024-4046 (every load writes the variable from the
# full_finetuning argument, "1" or "0") and :4947-4953 (get_peft_model returns the model
# untouched under "1"; else it goes on to post_patch_model, whose block compile is
# torch.compile, models/_block_compile.py:838).
PEFT = """\
import os

import torch


def _compile_blocks(model):
    return torch.compile(model)


def add_adapters(model, r):
    return model


def get_peft_model(model, r=16):
    if os.environ.get("PKG_FULL_FINETUNING", "0") == "1":
        print("Full finetuning is enabled, so get_peft_model has no effect")
        return model
    model = add_adapters(model, r)
    return _compile_blocks(model)
"""
LOADER = """\
import os


def from_pretrained(name, full_finetuning=False):
    if full_finetuning:
        os.environ["PKG_FULL_FINETUNING"] = "1"
    else:
        os.environ["PKG_FULL_FINETUNING"] = "0"
    return name
"""
# vllm, model_executor/determinism/batch_invariant.py:1392: the program writes only the
# value a recipe writes (its own deterministic mode turns the kernel off): still a kernel
# choice.
ONE_WAY = """\
import os


def enable_batch_invariant_mode():
    os.environ["PKG_FULL_FINETUNING"] = "1"
"""
# unsloth 2026.10.9, models/loader.py:2789 and :2795: a third value ("partial", a mode of
# its own) beside the recipe's is not the switch turned back: still a kernel choice.
THIRD_VALUE = LOADER.replace('"0"', '"partial"')

# unsloth_zoo 2026.10.9, device_type.py:471-482 (_cpu_fallback answers "cpu" under "1"),
# __init__.py:196-202 (DEVICE_TYPE = "cpu") and :571-580 (the import-time install of the
# fused loss, compiled, skipped under "1").
ZOO_INIT = """\
import os

_SKIP_GPU_INIT = os.environ.get("PKG_DISABLE_GPU_INIT", "0") == "1"
if _SKIP_GPU_INIT:
    DEVICE_TYPE = "cpu"

if not _SKIP_GPU_INIT:
    from pkg.fused import install_fused_forward

    install_fused_forward()
"""
FUSED = """\
import torch


def _loss(x):
    return x.sum()


def install_fused_forward():
    return torch.compile(_loss)
"""
DEVICE = """\
import os


def _cpu_fallback():
    if os.environ.get("PKG_DISABLE_GPU_INIT", "0") == "1":
        return "cpu"
    return None
"""
DEVICE_GPU = DEVICE.replace('return "cpu"', 'return "cuda"')

# unsloth 2026.10.9, models/rl_replacements.py:3826-3840 (the packed forward under the
# switch sets _pk_use and _pk_result, bound before it) and :4135-4141 (a later test of
# _pk_use: else, the padded loop, which calls the same compiled log-softmax,
# unsloth_zoo/rl_replacements.py:184 -> temporary_patches/common.py:415-431).
PACKING = """\
import os

import torch

SEQ_PACKING_ON = os.environ.get("PKG_SEQ_PACKING", "1").lower() not in ("0", "false")


def _maybe_compile(fn):
    return torch.compile(fn)


def _impl(hidden):
    return torch.log_softmax(hidden, -1)


def selective_log_softmax(hidden):
    return _maybe_compile(_impl)(hidden)


def logprobs(model, batch):
    _pk_use = False
    _pk_result = None
    if SEQ_PACKING_ON and batch.fits:
        try:
            _pk_result = selective_log_softmax(model(batch.packed))
            if _pk_result.shape[0] == len(batch.rows):
                _pk_use = True
        except RuntimeError:
            _pk_result = None
    if _pk_use and _pk_result is not None:
        logps = _pk_result
    else:
        logps = torch.cat([selective_log_softmax(model(row)) for row in batch.rows])
    return logps
"""
PACKING_PLAIN = PACKING.replace(
    "[selective_log_softmax(model(row))", "[torch.log_softmax(model(row), -1)"
)
# The arm of the later test that runs only when the flag is set is the branch's own work,
# not a fallback: a kernel it reaches is not one the other side reaches too.
PACKING_USED = PACKING_PLAIN.replace(
    "        logps = _pk_result\n", "        logps = selective_log_softmax(_pk_result)\n"
)

# unsloth (the pin of benchmarks/recipe_grades.yaml), models/rl_replacements.py:4135-4145
# and :4147-4179: the arm a set flag takes empties the rows (``zipped_inputs = []``), the
# fallback arm only clears buffers, and the padded loop after the test iterates the rows,
# calling the same compiled log-softmax (unsloth_zoo/rl_replacements.py:184 ->
# temporary_patches/common.py:415-431); unsloth_zoo/rl_replacements.py:3489-3505 the same.
PACKING_LOOP = PACKING.replace(
    """    if _pk_use and _pk_result is not None:
        logps = _pk_result
    else:
        logps = torch.cat([selective_log_softmax(model(row)) for row in batch.rows])
    return logps
""",
    """    rows = batch.rows
    if _pk_use and _pk_result is not None:
        logps = [_pk_result]
        rows = []
    else:
        _pk_result = None
        logps = []
    for row in rows:
        logps.append(selective_log_softmax(model(row)))
    return torch.cat(logps)
""",
)
# The loop after iterates rows the flag's arm leaves as they were: not the fallback's own.
PACKING_LOOP_KEPT = PACKING_LOOP.replace("        rows = []\n", "        rows = rows[:0]\n")

# unsloth 2026.10.9, utils/attention_dispatch.py:998-1005 (the kernel's entry imported
# under the switch into a name that is None otherwise) and utils/prefix_grouper_kernel.py:69
# and :331-337 (a module-level torch.compile of flex_attention, called by the entry).
FLEX_KERNEL = """\
import torch
from torch.nn.attention.flex_attention import flex_attention

_flex_attention_compiled = torch.compile(flex_attention, dynamic=True)


def flex_shared_prefix_attention(q, k, v):
    return _flex_attention_compiled(q, k, v)
"""
DISPATCH = """\
import os

import torch

_flex_shared_prefix_attention = None
if os.environ.get("PKG_PREFIX_GROUPER", "1").lower() not in ("0", "false", "no", "off"):
    try:
        from .prefix_kernel import flex_shared_prefix_attention as _flex_shared_prefix_attention
    except Exception:
        _flex_shared_prefix_attention = None


def attention(q, k, v, seg_info=None):
    if seg_info is not None and _flex_shared_prefix_attention is not None:
        return _flex_shared_prefix_attention(q, k, v)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)
"""

# unsloth 2026.10.9, models/rl_replacements.py:3765 (a closure that runs the grouped forward
# and the compiled log-softmax), :3800-3808 (under the verify switch off, it is called and
# _pg_skip_pk set) and :3837 (the packed forward, skipped when _pg_skip_pk is set, calls the
# same compiled log-softmax): "0" leaves the packed forward for a path that reaches the
# same kernel.
VERIFY = """\
import os

import torch

_VERIFY_ON = os.environ.get("PKG_PG_VERIFY", "1").lower() not in ("0", "false")


def _maybe_compile(fn):
    return torch.compile(fn)


def _impl(hidden):
    return torch.log_softmax(hidden, -1)


def selective_log_softmax(hidden):
    return _maybe_compile(_impl)(hidden)


def logprobs(model, batch, verified):
    _pg_use = False
    _pg_result = None
    _pg_skip_pk = False

    def _pg_run_forward():
        return selective_log_softmax(model(batch.grouped))

    if (not _VERIFY_ON) or verified:
        _pg_result = _pg_run_forward()
        _pg_use = True
        _pg_skip_pk = True
    _pk_result = None
    if not _pg_skip_pk and batch.fits:
        _pk_result = selective_log_softmax(model(batch.packed))
    if _pg_use:
        return _pg_result
    return _pk_result
"""

# sglang, srt/utils/common.py:387-395 (the variable overrides whether FlashInfer is
# installed) and srt/layers/moe/moe_runner/flashinfer_trtllm.py:152-155 (the import under
# that test, None otherwise, called untested at :1386): an import the code needs.
AVAILABLE = """\
import importlib.util
import os


def is_flashinfer_available():
    if os.environ.get("PKG_IS_FLASHINFER_AVAILABLE", "true").lower() in ("0", "false"):
        return False
    return importlib.util.find_spec("flashinfer") is not None
"""
FP4_UTILS = """\
from flashinfer import fp4_quantize as _flashinfer_fp4_quantize


def fp4_quantize(x):
    return _flashinfer_fp4_quantize(x)
"""
RUNNER = """\
from pkg.common import is_flashinfer_available

if is_flashinfer_available():
    from pkg.fp4_utils import fp4_quantize
else:
    fp4_quantize = None


def run(x):
    return fp4_quantize(x)
"""

# sglang, multimodal_gen/runtime/models/dits/joy_image.py:116-118 (under "0" the closure
# reference() runs) -> layers/layernorm.py:1183-1239 (apply_qk_norm_rope tests the same
# variable again before its fused kernel): the kernel is not reached by coming back.
LAYERNORM = """\
import os

import torch
from sgl_kernel import fused_inplace_qknorm_rope


def apply_qk_norm_rope(q, k):
    fused_enabled = os.environ.get("PKG_FUSED_QKNORM_ROPE", "1") != "0"
    if fused_enabled and q.is_cuda:
        fused_inplace_qknorm_rope(q, k)
        return q, k
    return torch.nn.functional.rms_norm(q, q.shape[-1:]), k
"""
DIT = """\
import os

import torch

from pkg.layernorm import apply_qk_norm_rope


def qk_rope(q, k):
    def reference():
        return apply_qk_norm_rope(q, k)

    if q.dtype != torch.bfloat16 or os.environ.get("PKG_FUSED_QKNORM_ROPE", "1") == "0":
        return reference()
    return reference()
"""

CASES = [
    (
        "written-both-ways",
        {"pkg/__init__.py": "", "pkg/peft.py": PEFT, "pkg/loader.py": LOADER},
        "PKG_FULL_FINETUNING",
        Role.UNKNOWN,
        "unset, it runs the branch of `not (os.environ.get('PKG_FULL_FINETUNING', '0') == "
        "'1')` at pkg/peft.py:15, which reaches calls _compile_blocks (pkg/peft.py:6) -> "
        "torch.compile at pkg/peft.py:7; PKG_FULL_FINETUNING='1' leaves that branch, and what "
        "runs instead reaches no such kernel; but the program sets it itself, to '1' at "
        "pkg/loader.py:6 and to '0' at pkg/loader.py:8: its own state at run time, which a "
        "recipe's value would override or lose; a person must say",
    ),
    (
        "written-one-way",
        {"pkg/__init__.py": "", "pkg/peft.py": PEFT, "pkg/mode.py": ONE_WAY},
        "PKG_FULL_FINETUNING",
        Role.KERNEL,
        "unset, it runs the branch of `not (os.environ.get('PKG_FULL_FINETUNING', '0') == "
        "'1')` at pkg/peft.py:15, which reaches calls _compile_blocks (pkg/peft.py:6) -> "
        "torch.compile at pkg/peft.py:7; PKG_FULL_FINETUNING='1' leaves that branch, and what "
        "runs instead reaches no such kernel",
    ),
    (
        "written-third-value",
        {"pkg/__init__.py": "", "pkg/peft.py": PEFT, "pkg/loader.py": THIRD_VALUE},
        "PKG_FULL_FINETUNING",
        Role.KERNEL,
        "unset, it runs the branch of `not (os.environ.get('PKG_FULL_FINETUNING', '0') == "
        "'1')` at pkg/peft.py:15, which reaches calls _compile_blocks (pkg/peft.py:6) -> "
        "torch.compile at pkg/peft.py:7; PKG_FULL_FINETUNING='1' leaves that branch, and what "
        "runs instead reaches no such kernel",
    ),
    (
        "answers-cpu",
        {
            "pkg/__init__.py": ZOO_INIT,
            "pkg/fused.py": FUSED,
            "pkg/device_type.py": DEVICE,
        },
        "PKG_DISABLE_GPU_INIT",
        Role.UNKNOWN,
        "PKG_DISABLE_GPU_INIT='1', _cpu_fallback returns the device name 'cpu' "
        "(pkg/device_type.py:5); unset, it does not: its value chooses the machine the code "
        "runs for, not a kernel of a GPU run; a person must say",
    ),
    (
        "answers-cuda",
        {
            # with a plain install in the skipped one's place: a skip with nothing in its
            # place is a person's question whatever the device answers
            "pkg/__init__.py": ZOO_INIT.replace('DEVICE_TYPE = "cpu"', 'DEVICE_TYPE = "cuda"')
            + "else:\n"
            + "    from pkg.fused import install_plain_forward\n\n"
            + "    install_plain_forward()\n",
            "pkg/fused.py": FUSED + "\n\ndef install_plain_forward():\n    return _loss\n",
            "pkg/device_type.py": DEVICE_GPU,
        },
        "PKG_DISABLE_GPU_INIT",
        Role.KERNEL,
        "unset, it runs the branch of `not _SKIP_GPU_INIT` at pkg/__init__.py:7, which "
        "reaches calls install_fused_forward (pkg/fused.py:8) -> torch.compile at "
        "pkg/fused.py:9; PKG_DISABLE_GPU_INIT='1' leaves that branch, and what runs instead "
        "reaches no such kernel",
    ),
    (
        # unsloth 2026.10.9, _gpu_init.py:852-855 (a patch skipped at import, nothing in
        # its place) beside device_type.py:105-107 (another test answers 'cuda'): what the
        # other test runs is not what runs in the patch's place
        "a-skip-beside-another-site",
        {
            "pkg/__init__.py": ZOO_INIT.replace('DEVICE_TYPE = "cpu"', 'DEVICE_TYPE = "cuda"'),
            "pkg/fused.py": FUSED,
            "pkg/device_type.py": DEVICE_GPU,
        },
        "PKG_DISABLE_GPU_INIT",
        Role.UNKNOWN,
        "unset, it runs the branch of `not _SKIP_GPU_INIT` at pkg/__init__.py:7, which "
        "reaches calls install_fused_forward (pkg/fused.py:8) -> torch.compile at "
        "pkg/fused.py:9; PKG_DISABLE_GPU_INIT='1' skips that branch and runs nothing in its "
        "place, so the work it does may be left undone: a person must say",
    ),
    (
        "fallback-same-kernel",
        {"pkg/__init__.py": "", "pkg/grpo.py": PACKING},
        "PKG_SEQ_PACKING",
        Role.FEATURE,
        "the name PKG_SEQ_PACKING says PACKING (what is computed or trained)",
    ),
    (
        "fallback-loop-emptied",
        {"pkg/__init__.py": "", "pkg/grpo.py": PACKING_LOOP},
        "PKG_SEQ_PACKING",
        Role.FEATURE,
        "the name PKG_SEQ_PACKING says PACKING (what is computed or trained)",
    ),
    (
        "fallback-loop-not-emptied",
        {"pkg/__init__.py": "", "pkg/grpo.py": PACKING_LOOP_KEPT},
        "PKG_SEQ_PACKING",
        Role.KERNEL,
        "unset, it runs the branch of `SEQ_PACKING_ON and batch.fits` at pkg/grpo.py:23, "
        "which reaches calls selective_log_softmax (pkg/grpo.py:16) -> calls _maybe_compile "
        "(pkg/grpo.py:8) -> torch.compile at pkg/grpo.py:9; PKG_SEQ_PACKING='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "fallback-plain",
        {"pkg/__init__.py": "", "pkg/grpo.py": PACKING_PLAIN},
        "PKG_SEQ_PACKING",
        Role.KERNEL,
        "unset, it runs the branch of `SEQ_PACKING_ON and batch.fits` at pkg/grpo.py:23, "
        "which reaches calls selective_log_softmax (pkg/grpo.py:16) -> calls _maybe_compile "
        "(pkg/grpo.py:8) -> torch.compile at pkg/grpo.py:9; PKG_SEQ_PACKING='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "fallback-arm-taken",
        {"pkg/__init__.py": "", "pkg/grpo.py": PACKING_USED},
        "PKG_SEQ_PACKING",
        Role.KERNEL,
        "unset, it runs the branch of `SEQ_PACKING_ON and batch.fits` at pkg/grpo.py:23, "
        "which reaches calls selective_log_softmax (pkg/grpo.py:16) -> calls _maybe_compile "
        "(pkg/grpo.py:8) -> torch.compile at pkg/grpo.py:9; PKG_SEQ_PACKING='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "kept-import",
        {"pkg/__init__.py": "", "pkg/prefix_kernel.py": FLEX_KERNEL, "pkg/dispatch.py": DISPATCH},
        "PKG_PREFIX_GROUPER",
        Role.KERNEL,
        "unset, it runs the branch of `os.environ.get('PKG_PREFIX_GROUPER', '1').lower() not "
        "in ...` at pkg/dispatch.py:6, which reaches imports flex_shared_prefix_attention, "
        "kept in _flex_shared_prefix_attention (None otherwise) (pkg/dispatch.py:8) -> calls "
        "_flex_attention_compiled (pkg/prefix_kernel.py:4) -> torch.compile at "
        "pkg/prefix_kernel.py:4; PKG_PREFIX_GROUPER='0' leaves that branch, and what runs "
        "instead reaches no such kernel",
    ),
    (
        "closure",
        {"pkg/__init__.py": "", "pkg/grpo.py": VERIFY},
        "PKG_PG_VERIFY",
        Role.SAFETY,
        "the name PKG_PG_VERIFY says VERIFY (a check)",
    ),
    (
        "import-needed",
        {
            "pkg/__init__.py": "",
            "pkg/common.py": AVAILABLE,
            "pkg/fp4_utils.py": FP4_UTILS,
            "pkg/runner.py": RUNNER,
        },
        "PKG_IS_FLASHINFER_AVAILABLE",
        Role.UNKNOWN,
        "nothing in its name, what it feeds or the functions that read it says what it controls",
    ),
    (
        "back-through-helper",
        {"pkg/__init__.py": "", "pkg/layernorm.py": LAYERNORM, "pkg/dit.py": DIT},
        "PKG_FUSED_QKNORM_ROPE",
        Role.KERNEL,
        "unset, it runs the branch of `fused_enabled and q.is_cuda` at pkg/layernorm.py:9, which "
        "reaches sgl-kernel (sgl_kernel.fused_inplace_qknorm_rope) at pkg/layernorm.py:10; "
        "PKG_FUSED_QKNORM_ROPE='0' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_own_state_and_machine(
    tmp_path: Path, files: dict[str, str], name: str, role: Role, reason: str
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert (knob.role, knob.role_reason) == (role, reason)
