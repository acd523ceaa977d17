"""Roles of knobs whose value flows on before a branch decides a kernel: kept under a key
of a module-level dict, looked up in a literal table, moved as a threshold.

Each case is a small tree on disk in the shape of the real code it stands for (the file
it was read from is named above it), scanned; the role, polarity, off value and the whole
evidence chain are checked."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scanner import GateKind, Polarity, Role
from scanner.reach.truth import truths, value_of
from tests.scanned import role_facts, scanned_knob

# unslothai/unsloth (unsloth_zoo) temporary_patches/moe_fused_swiglu.py:54,60-65,90-92 and
# moe_utils.py:2484-2504: the value compared with off words and kept in a module dict's
# slot, read back by a predicate another module calls through a local alias of the module.
SLOT = {
    "pkg/__init__.py": "",
    "pkg/swiglu.py": (
        "import os\n\n"
        "try:\n    import triton\n    import triton.language as tl\n"
        "except Exception:\n    triton = None\n\n"
        '_STATE = {"enabled": False, "compiled": False}\n\n\n'
        "def refresh_enabled():\n"
        '    mode = os.environ.get("X_FUSED_SWIGLU", "1").strip().lower()\n'
        '    _STATE["enabled"] = triton is not None and mode not in ("0", "false", "off")\n'
        '    _STATE["compiled"] = _STATE["enabled"] and mode in ("2", "compile")\n'
        '    return _STATE["enabled"]\n\n\n'
        "refresh_enabled()\n\n\n"
        "def supported(x):\n"
        '    return _STATE["enabled"] and x.is_cuda\n\n\n'
        "@triton.jit\ndef _swiglu_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "def fused_swiglu(x):\n    _swiglu_kernel[(1,)](x, 1)\n    return x\n"
    ),
    "pkg/moe.py": (
        "try:\n    from pkg import swiglu as _SWIGLU\nexcept Exception:\n    _SWIGLU = None\n\n\n"
        "def activation(x):\n"
        "    _sw = _SWIGLU\n"
        "    if _sw is None or not _sw.supported(x):\n"
        "        return None\n"
        "    return _sw.fused_swiglu(x)\n"
    ),
}

# unslothai/unsloth (unsloth_zoo) temporary_patches/moe_utils.py:2425-2462: the value looked
# up in a literal table for a threshold on top_k; past the threshold, in compiled code, a
# torch.autograd.Function with its own backward replaces the index gather.
GATHER = {
    "pkg/__init__.py": "",
    "pkg/moe.py": (
        "import os\n\nimport torch\n\n"
        '_GATHER = os.environ.get("X_MOE_GATHER", "")\n'
        '_MIN_TOP_K = {"1": 3, "0": 1 << 30}.get(_GATHER, 8)\n\n\n'
        "class _RowGather(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, h, idx, k):\n"
        "        ctx.save_for_backward(idx)\n        return h.index_select(0, idx // k)\n\n"
        "    @staticmethod\n    def backward(ctx, grad):\n"
        "        (idx,) = ctx.saved_tensors\n"
        "        return grad.index_select(0, idx), None, None\n\n\n"
        "def gather_rows(h, idx, top_k):\n"
        "    if top_k >= _MIN_TOP_K and torch.compiler.is_compiling() and h.requires_grad:\n"
        "        return _RowGather.apply(h, idx, top_k)\n"
        "    return h[idx // top_k]\n"
    ),
}
# The same without the compiled-code test: eager autograd's index backward is not Inductor's
# atomic scatter, so the code shows no deterministic path.
EAGER = {
    **GATHER,
    "pkg/moe.py": GATHER["pkg/moe.py"].replace(" and torch.compiler.is_compiling()", ""),
}

# unslothai/unsloth kernels/nf4_gemv.py:172-181 and kernels/utils.py:669,693,1285: the
# value returned only under a test of the local that holds it; unset, the function returns
# a truth the machine computes, so unset may take either side of the kernel test that reads
# the module-level name it is bound to, and "0" never takes the kernel's.
GUARDED = {
    "pkg/__init__.py": "",
    "pkg/gemv.py": (
        "import os\n\nimport torch\n\n\n"
        "def gemv_eager():\n"
        '    env = os.environ.get("X_GEMV_EAGER")\n'
        '    if env in ("0", "1"):\n'
        '        return env == "1"\n'
        "    return torch.version.hip is None\n"
    ),
    "pkg/utils.py": (
        "import torch\nimport triton\nimport triton.language as tl\n\n"
        "_EAGER = False\n"
        "try:\n    from pkg.gemv import gemv_eager\n\n    _EAGER = gemv_eager()\n"
        "except Exception:\n    pass\n\n\n"
        "@triton.jit\ndef _gemv_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "def matmul(x):\n"
        "    if not _EAGER:\n"
        "        return torch.matmul(x, x)\n"
        "    _gemv_kernel[(1,)](x, 1)\n"
        "    return x\n"
    ),
}

# The same, where unset returns what a call gives: the function returns a truth for every
# value set, so the tests of what it returns take either side unset, as the run computes
# (what `env == "1"` gives unset is not what the function returns); "0" leaves the kernel.
GUARDED_CALL = {
    **GUARDED,
    "pkg/gemv.py": GUARDED["pkg/gemv.py"].replace(
        "return torch.version.hip is None", "return torch.cuda.is_available()"
    ),
}

# ROCm/aiter ops/triton/attention/pa_mqa_logits.py:38-41,46-80,530: the value rebound at
# module level, then combined into a name that the other side of a module-level `if` (on
# the Triton version) binds without it: the test of that name is not the value's alone.
APART = {
    "pkg/__init__.py": "",
    "pkg/logits.py": (
        "import os\n\nimport triton\nimport triton.language as tl\n\n"
        '_AOT = os.environ.get("X_AOT_GLUON", "0")\n'
        '_AOT = _AOT == "1"\n'
        "if triton.__version__ >= '3.5':\n"
        "    _GLUON = True\n"
        "else:\n"
        "    _GLUON = _AOT and triton.__version__ >= '3.0'\n\n\n"
        "@triton.jit\ndef _logits_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "def logits(x, load_aot):\n"
        "    if _GLUON:\n"
        "        return load_aot(x)\n"
        "    _logits_kernel[(1,)](x, 1)\n"
        "    return x\n"
    ),
}

# Tencent/AngelSlim 67394ce angelslim/compressor/_platform.py:150-174 and diffusion/cache/
# taylorcache_helper.py:11-23,156: the value returned by a cached predicate, bound at module
# level inside a `try` whose `except ImportError` binds False: that handler runs only where
# the import failed; where the code is installed the name holds the predicate's answer.
FALLBACK = {
    "pkg/__init__.py": "",
    "pkg/_platform.py": (
        "import os\nfrom functools import lru_cache\n\n\n"
        "@lru_cache(maxsize=1)\n"
        "def is_torch_compile_supported() -> bool:\n"
        '    env_compile = os.environ.get("X_TORCH_COMPILE", "").lower()\n'
        '    if env_compile == "0" or env_compile == "false":\n'
        "        return False\n"
        '    if env_compile == "1" or env_compile == "true":\n'
        "        return True\n"
        "    return True\n"
    ),
    "pkg/taylor.py": (
        "import torch\n\n"
        "try:\n"
        "    from pkg._platform import is_torch_compile_supported\n\n"
        "    _USE_TORCH_COMPILE = is_torch_compile_supported()\n"
        "except ImportError:\n"
        "    _USE_TORCH_COMPILE = False\n\n\n"
        "def _conditional_compile(func):\n"
        "    if _USE_TORCH_COMPILE:\n"
        "        return torch.compile(func)\n"
        "    return func\n\n\n"
        "class TaylorCacheHelper:\n"
        "    @_conditional_compile\n"
        "    def derivative(self, x):\n"
        "        return x * 2\n"
    ),
}
# The same where the handler catches any failure (`except Exception`), the call's too: the
# name holds False on a path the value does not decide, so its test is not the value's alone.
FALLBACK_ANY = {
    **FALLBACK,
    "pkg/taylor.py": FALLBACK["pkg/taylor.py"].replace("except ImportError:", "except Exception:"),
}

# sglang srt/models/qwen3_5.py:177-182,1433-1450: the value combined with the machine's
# answer at module level (`read and _is_hip`); what runs instead of the fused kernel is a
# call through a module attribute (`self.q_norm(...)`) the reach does not follow.
COMBINED = {
    "pkg/__init__.py": "",
    "pkg/model.py": (
        "import os\n\nimport torch\nimport triton\nimport triton.language as tl\n\n"
        "_is_hip = torch.version.hip is not None\n"
        '_ALT = os.environ.get("X_ALT_STREAM", "0") == "1" and _is_hip\n\n\n'
        "@triton.jit\ndef _qk_norm_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "class Attention:\n"
        "    def qk_norm(self, q):\n"
        "        if self.alt_stream is not None and _ALT:\n"
        "            q = self.q_norm(q)\n"
        "        elif _is_hip:\n"
        "            _qk_norm_kernel[(1,)](q, 1)\n"
        "        return q\n"
    ),
}

# unslothai/unsloth (unsloth_zoo) temporary_patches/moe_routing_triton.py:43-45,168-176,
# 241-266,330-345: the value kept at module level and compared there into two names, one that
# kills the Triton routing kernel ("0") and one that forces it on ROCm ("1"): three behaviours
# (auto, killed, forced), so the uses disagree on a default: a choice. The torch path counts
# with an integer scatter_add_ (exact in any order), which the kernel's first launch is also
# checked against: "0" leaves the kernel for code that shows none.
TRI = {
    "pkg/__init__.py": "",
    "pkg/routing.py": (
        "import os\n\nimport torch\nimport triton\nimport triton.language as tl\n\n"
        '_ENV = os.environ.get("X_TRITON_ROUTING", "auto").strip().lower()\n'
        '_KILLED = _ENV in ("0", "false", "off", "no")\n'
        '_FORCED = _ENV in ("1", "true", "on", "yes")\n\n\n'
        "@triton.jit\ndef _sort_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
        "def torch_routing_sort(idx, n):\n"
        "    index = idx.reshape(-1).long()\n"
        "    counts = torch.zeros(n, dtype=torch.int32, device=idx.device)\n"
        "    counts.scatter_add_(0, index, torch.ones_like(index, dtype=torch.int32))\n"
        "    return counts, index.argsort(stable=True)\n\n\n"
        "def _verified_launch(idx, n):\n"
        "    _sort_kernel[(1,)](idx, n)\n"
        "    ref = torch_routing_sort(idx, n)\n"
        "    return idx, ref\n\n\n"
        "def routing_sort(idx, n):\n"
        "    if not _KILLED and idx.is_cuda and (torch.version.hip is None or _FORCED):\n"
        "        return _verified_launch(idx, n)\n"
        "    return torch_routing_sort(idx, n)\n"
    ),
}
# The same where the torch path adds floats: their order changes the sum, so "0" leaves one
# kernel for another, and the code shows no switch.
TRI_FLOAT = {
    **TRI,
    "pkg/routing.py": TRI["pkg/routing.py"].replace("torch.int32", "torch.float32"),
}

CASES: list[tuple[str, dict[str, str], str, Role, str | None, str]] = [
    (
        "a-kept-value-killed-by-one-name-forced-by-another",
        TRI,
        "X_TRITON_ROUTING",
        Role.KERNEL,
        "0",
        "unset, it runs the branch of `not _KILLED and idx.is_cuda and (torch.version.hip is "
        "Non...` at pkg/routing.py:31, which reaches calls _verified_launch (pkg/routing.py:24) "
        "-> calls _sort_kernel (pkg/routing.py:13) -> @triton.jit _sort_kernel at "
        "pkg/routing.py:13; X_TRITON_ROUTING='0' leaves that branch, and what runs instead "
        "reaches no such kernel",
    ),
    (
        "the-same-where-the-torch-path-adds-floats",
        TRI_FLOAT,
        "X_TRITON_ROUTING",
        Role.VALUE,
        None,
        "not a switch: the code uses its value",
    ),
    (
        "kept-in-a-module-dict-slot",
        SLOT,
        "X_FUSED_SWIGLU",
        Role.KERNEL,
        "0",
        "unset, it runs the branch of `not (_sw is None or not _sw.supported(x))` at "
        "pkg/moe.py:9, which reaches calls fused_swiglu (pkg/swiglu.py:31) -> calls "
        "_swiglu_kernel (pkg/swiglu.py:27) -> @triton.jit _swiglu_kernel at pkg/swiglu.py:27; "
        "X_FUSED_SWIGLU='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-table-threshold-choosing-an-own-backward",
        GATHER,
        "X_MOE_GATHER",
        Role.DETERMINISM,
        None,
        "X_MOE_GATHER='1' runs the branch of `top_k >= _MIN_TOP_K and "
        "torch.compiler.is_compiling() and...` at pkg/moe.py:22, which calls _RowGather.apply "
        "(pkg/moe.py:23), a torch.autograd.Function with a backward of its own "
        "(pkg/moe.py:16), where the other side gathers `h[idx // top_k]` (pkg/moe.py:24), "
        "whose backward Inductor scatters with atomic adds (torch/_inductor/lowering.py:"
        "4649,4752 (torch 2.13)); the test holds only in compiled code; unset runs the other "
        "side for some inputs '1' sends to the Function: the value chooses the deterministic "
        "path",
    ),
    (
        "a-return-guarded-by-a-test-of-the-local",
        GUARDED,
        "X_GEMV_EAGER",
        Role.KERNEL,
        "0",
        "unset, it may run the branch of `_EAGER` at pkg/utils.py:20, which reaches calls "
        "_gemv_kernel (pkg/utils.py:15) -> @triton.jit _gemv_kernel at pkg/utils.py:15; "
        "X_GEMV_EAGER='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-guarded-return-where-unset-returns-a-call",
        GUARDED_CALL,
        "X_GEMV_EAGER",
        Role.KERNEL,
        "0",
        "unset, it may run the branch of `_EAGER` at pkg/utils.py:20, which reaches calls "
        "_gemv_kernel (pkg/utils.py:15) -> @triton.jit _gemv_kernel at pkg/utils.py:15; "
        "X_GEMV_EAGER='0' leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-module-name-bound-apart-from-the-value",
        APART,
        "X_AOT_GLUON",
        Role.UNKNOWN,
        "0",
        "the name X_AOT_GLUON says GLUON, a hint of a kernel choice, but no code it reaches "
        "shows one: words alone are not evidence",
    ),
    (
        "a-module-name-bound-in-a-try-whose-import-fallback-binds-a-constant",
        FALLBACK,
        "X_TORCH_COMPILE",
        Role.KERNEL,
        "0",
        "unset, it runs the branch of `_USE_TORCH_COMPILE` at pkg/taylor.py:12, which reaches "
        "torch.compile at pkg/taylor.py:13; X_TORCH_COMPILE='0' leaves that branch, and what "
        "runs instead reaches no such kernel",
    ),
    (
        "the-same-where-the-handler-catches-any-failure",
        FALLBACK_ANY,
        "X_TORCH_COMPILE",
        Role.UNKNOWN,
        "0",
        "the name X_TORCH_COMPILE says COMPILE, a hint of a kernel choice, but no code it "
        "reaches shows one: words alone are not evidence",
    ),
    (
        "the-same-threshold-in-eager-code",
        EAGER,
        "X_MOE_GATHER",
        Role.VALUE,
        None,
        "not a switch: the code uses its value",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_role_of_a_value_followed_on(
    tmp_path: Path, files: dict[str, str], name: str, role: Role, off: str | None, reason: str
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert role_facts(knob) == (role, Polarity.ENABLE, off, reason)


def test_a_name_combined_with_the_machine_at_module_level(tmp_path: Path) -> None:
    """Followed where the probes made no store of the name (scanner.reach.uses'
    ``module_store``): the kernel is reached on the other side of the name's test; what runs
    instead (``self.q_norm``) is a call the reach does not resolve, as everywhere."""
    knob = scanned_knob(tmp_path, COMBINED, "X_ALT_STREAM")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `not (self.alt_stream is not None and _ALT)` at "
        "pkg/model.py:18, which reaches calls _qk_norm_kernel (pkg/model.py:12) -> @triton.jit "
        "_qk_norm_kernel at pkg/model.py:12; X_ALT_STREAM='1' leaves that branch, and what "
        "runs instead reaches no such kernel",
    )


def test_a_kept_choice_is_on_by_default(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, SLOT, "X_FUSED_SWIGLU")
    assert (knob.kind, knob.default_on, knob.off_value) == (GateKind.VALUE, True, "0")


def test_uses_that_disagree_on_the_default_make_a_choice(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, TRI, "X_TRITON_ROUTING")
    assert (knob.kind, knob.default_on, knob.off_value) == (GateKind.VALUE, True, "0")


def test_a_chosen_deterministic_path_is_off_until_its_value(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, GATHER, "X_MOE_GATHER")
    assert (knob.kind, knob.default_on, knob.on_value) == (GateKind.VALUE, False, "1")


def test_a_literal_table_lookup_has_a_value_per_key() -> None:
    node = ast.parse('{"1": 3, "0": 1 << 30}.get(x, 8)', mode="eval").body
    assert isinstance(node, ast.Call)
    carrier = node.args[0]
    found = [value_of(node, lambda n: n is carrier, v) for v in ("", "1", "0", "true")]
    assert found == [(True, 8), (True, 3), (True, 1 << 30), (True, 8)]


def test_a_threshold_is_tried_at_each_level() -> None:
    test = ast.parse("top_k >= x and ready", mode="eval").body
    assert isinstance(test, ast.BoolOp) and isinstance(test.values[0], ast.Compare)
    carrier = test.values[0].comparators[0]
    levels = (3, 8, 1 << 30)
    rows = {o: truths(test, lambda n: n is carrier, o, levels=levels) for o in levels}
    # each choice: `ready` false or true, then top_k at 3, 8 and 1 << 30
    assert rows == {
        3: (False, False, False, True, True, True),
        8: (False, False, False, False, True, True),
        1 << 30: (False, False, False, False, False, True),
    }
    assert truths(test, lambda n: n is carrier, 3) == (False, False, False, True)


def test_a_threshold_on_the_carrier_s_left() -> None:
    """AMD-AGI/Primus fd1eeab, megatron_bridge/recipes/mlperf_llama2_70b/llama2_custom.py:1196:
    ``steps <= 0 and valid <= 0`` with the carrier on the left of a literal: the literal is
    compared as it is, neither a threshold tried at each level nor items the carrier is
    looked for among (which raised AssertionError and stopped `knobs init`)."""
    test = ast.parse("x <= 0 and ready", mode="eval").body
    assert isinstance(test, ast.BoolOp) and isinstance(test.values[0], ast.Compare)
    carrier = test.values[0].left
    levels = (0, 5)
    rows = {o: truths(test, lambda n: n is carrier, o, levels=levels) for o in levels}
    # each choice: `ready` false or true; the literal is compared as it is
    assert rows == {0: (False, True), 5: (False, False)}
