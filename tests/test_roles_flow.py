"""Roles from what the code does, where a gate's value reaches the kernel choice through a
return, an emptied local, an attribute of an object or a keyword handed on.

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the role, polarity, off value and the whole
evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import KERNEL, role_facts, scanned_knob

# unslothai unsloth 2026.10.9, kernels/int4_packed.py:503-540 and :543-547: the value is
# bound to a local of a helper that returns one of two constants by it (``return
# "tinygemm" if tinygemm else None``); the caller tests ``layout is None`` and returns,
# else repacks through a Triton kernel.
PICKED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/packed.py": (
        "import os\n\nimport torch\n\nfrom pkg.kernels import fused_rms_norm\n\n\n"
        "def _pick_layout(packed, group):\n"
        "    if not packed.is_cuda:\n"
        "        return None\n"
        "    fast = (\n"
        "        group in (32, 64)\n"
        '        and hasattr(torch, "_weight_int4pack_mm")\n'
        '        and os.environ.get("X_TINYGEMM", "1") != "0"\n'
        "    )\n"
        "    other = group in (32, 64) and packed.shape[0] % 64 == 0\n"
        "    if other and not fast:\n"
        '        return "other"\n'
        '    return "fast" if fast else None\n\n\n'
        "def _verified(layout, device):\n"
        '    return device.type == "cuda"\n\n\n'
        "def repack_(packed, group):\n"
        "    layout = _pick_layout(packed, group)\n"
        "    if layout is None or not _verified(layout, packed.device):\n"
        "        return None\n"
        "    packed.copy_(fused_rms_norm(packed))\n"
        "    return layout\n"
    ),
}

# unslothai unsloth 2026.10.9, models/_decision_fast.py:110-118 and :160-203: a predicate
# whose answer unset is computed; its caller empties the list of layers where the answer is
# no (``if not (layers and _wants_compile(...)): layers = []``) and compiles each layer
# under ``if layers:``, emptying the list again where compiling fails.
EMPTIED = {
    "pkg/__init__.py": "",
    "pkg/fast.py": (
        "import importlib.util\nimport os\n\nimport torch\n\n"
        "COMPILE_MIN_FORWARDS = 64\n\n\n"
        "def _layers(model):\n"
        '    layers = getattr(model, "layers", None)\n'
        "    return list(layers) if isinstance(layers, torch.nn.ModuleList) else []\n\n\n"
        "def _on_gpu(model):\n"
        '    return next(model.parameters()).device.type == "cuda"\n\n\n'
        "def _wants_compile(model, forwards):\n"
        '    choice = os.environ.get("X_DECISION_COMPILE", "auto")\n'
        '    if choice in ("0", "1"):\n'
        '        return choice == "1"\n'
        "    return (\n"
        "        _on_gpu(model)\n"
        "        and forwards >= COMPILE_MIN_FORWARDS\n"
        '        and importlib.util.find_spec("triton") is not None\n'
        "    )\n\n\n"
        "def compiled(model, forwards):\n"
        "    layers = _layers(model)\n"
        "    if not (layers and _wants_compile(model, forwards)):\n"
        "        layers = []\n"
        "    if layers:\n"
        "        try:\n"
        "            for layer in layers:\n"
        "                layer.compile(dynamic=True)\n"
        "        except Exception:\n"
        "            torch._dynamo.reset()\n"
        "            layers = []\n"
        "    return bool(layers)\n"
    ),
}

# unslothai unsloth_zoo 2026.10.9, temporary_patches/moe_utils.py:2012-2014 (the read and
# ``return False`` on one line), :2062-2076 (a caching wrapper), :2120-2145 (the selector:
# ``if _check_grouped_gemm_available(): return "unsloth_triton"``, then other constants)
# and :2251-2266 (the forward compares the returned string to pick the Triton kernel).
SELECTED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/moe.py": (
        "import os\n"
        "\n"
        "import torch\n"
        "\n"
        "from pkg.kernels import fused_rms_norm\n"
        "\n"
        "_GROUPED_GEMM_AVAILABLE = None\n"
        "_SELECTED = None\n"
        "\n"
        "\n"
        "def _check_grouped_gemm_available():\n"
        '    if os.environ.get("X_DISABLE_MOE_TRITON", "0") == "1": return False\n'
        "    global _GROUPED_GEMM_AVAILABLE\n"
        "    if _GROUPED_GEMM_AVAILABLE is not None: return _GROUPED_GEMM_AVAILABLE\n"
        "    _GROUPED_GEMM_AVAILABLE = torch.cuda.is_available()\n"
        "    return _GROUPED_GEMM_AVAILABLE\n"
        "\n"
        "\n"
        "def _grouped_mm_supported():\n"
        '    return hasattr(torch, "_grouped_mm")\n'
        "\n"
        "\n"
        "def _select_moe_backend():\n"
        '    requested = os.environ.get("X_MOE_BACKEND")\n'
        "    if requested:\n"
        '        if requested == "unsloth_triton" and _check_grouped_gemm_available():\n'
        '            return "unsloth_triton"\n'
        '        if requested == "native_torch":\n'
        '            return "native_torch"\n'
        "    if _grouped_mm_supported():\n"
        '        return "grouped_mm"\n'
        "    if _check_grouped_gemm_available():\n"
        '        return "unsloth_triton"\n'
        '    return "native_torch"\n'
        "\n"
        "\n"
        "def select_moe_backend():\n"
        "    global _SELECTED\n"
        "    if _SELECTED is not None:\n"
        "        return _SELECTED\n"
        "    backend = _select_moe_backend()\n"
        "    if not torch.compiler.is_compiling():\n"
        "        _SELECTED = backend\n"
        "    return backend\n"
        "\n"
        "\n"
        "def forward(self, hidden_states):\n"
        "    backend = select_moe_backend()\n"
        '    if backend == "grouped_mm":\n'
        "        return torch._grouped_mm(hidden_states, self.w)\n"
        '    if backend == "unsloth_triton":\n'
        "        return fused_rms_norm(hidden_states)\n"
        "    return hidden_states @ self.w\n"
    ),
}

# The same selector as at moe_utils.py:2120-2145 itself: each requested name is tried with
# the machine's answer for it, and a message that names the value (:2137) comes before the
# fall-through. The value is tested again after its first test, so no one test picks the
# constant returned: the walk of the function from the read does, with the same question of
# the machine (``_grouped_mm_supported()``) answered the same way in each test.
SELECTED_LOGGED = {
    **SELECTED,
    "pkg/moe.py": SELECTED["pkg/moe.py"]
    .replace(
        "    if requested:\n",
        "    if requested:\n"
        '        if requested == "grouped_mm" and _grouped_mm_supported():\n'
        '            return "grouped_mm"\n',
    )
    .replace(
        '            return "native_torch"\n    if _grouped_mm_supported():\n',
        '            return "native_torch"\n'
        '        print(f"backend {requested!r} is not available: the next one")\n'
        "    if _grouped_mm_supported():\n",
    ),
}

# sgl-project sglang srt/layers/attention/hip_flash_mla.py:174-186 (the name read under
# ``if backend is None``, "auto" resolved by the machine, any other name given back as it
# is) and :198-241 (the caller tests the name it gets back: "torch" is the reference in
# plain torch, "tilelang" and "aiter_sparse" run kernels). The probes see the function
# return the value for the names it tests, but not what "auto" (unset) becomes.
RESOLVED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/attention.py": (
        "import os\n"
        "\n"
        "import torch\n"
        "\n"
        "from pkg.kernels import fused_rms_norm\n"
        "\n"
        '_BACKENDS = ("tilelang", "aiter_sparse", "torch")\n'
        "\n"
        "\n"
        "def is_gfx95_supported():\n"
        '    return torch.cuda.get_device_properties(0).gcnArchName == "gfx950"\n'
        "\n"
        "\n"
        "def resolve_backend(backend=None):\n"
        "    if backend is None:\n"
        '        backend = os.environ.get("X_ATTN_BACKEND", "auto")\n'
        '    if backend == "auto":\n'
        '        return "aiter_sparse" if is_gfx95_supported() else "tilelang"\n'
        '    if backend == "aiter_sparse" and not is_gfx95_supported():\n'
        '        raise ValueError("aiter_sparse needs gfx950")\n'
        "    return backend\n"
        "\n"
        "\n"
        "def attention_torch(q, k):\n"
        "    return torch.softmax(q @ k.T, dim=-1)\n"
        "\n"
        "\n"
        "def attention(backend, q, k):\n"
        "    backend = resolve_backend(backend if backend in _BACKENDS else None)\n"
        '    if backend == "torch":\n'
        "        return attention_torch(q, k)\n"
        '    if backend == "tilelang":\n'
        "        return fused_rms_norm(q)\n"
        '    if backend == "aiter_sparse":\n'
        "        return fused_rms_norm(k)\n"
        '    raise NotImplementedError(f"unknown backend: {backend!r}")\n'
    ),
}

CASES = [
    (
        "a-constant-returned-by-the-value-and-tested-by-the-caller",
        PICKED,
        "X_TINYGEMM",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it runs the branch of `not (layout is None or not _verified(layout, "
        "packed.device))` at pkg/packed.py:28, which reaches calls fused_rms_norm "
        "(pkg/kernels.py:10) -> calls _fwd_kernel (pkg/kernels.py:6) -> @triton.jit "
        "_fwd_kernel at pkg/kernels.py:6; X_TINYGEMM='0' leaves that branch, and what runs "
        "instead reaches no such kernel",
    ),
    (
        "a-list-emptied-where-the-value-says-no",
        EMPTIED,
        "X_DECISION_COMPILE",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        "unset, it may run the branch of `layers` at pkg/fast.py:33, which reaches "
        "torch.nn.Module.compile() at pkg/fast.py:36; X_DECISION_COMPILE='0' leaves that "
        "branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-name-a-selector-returns-where-the-value-is-tested-again",
        SELECTED_LOGGED,
        "X_MOE_BACKEND",
        Role.KERNEL,
        Polarity.ENABLE,
        "native_torch",
        "unset, it runs the branch of `backend == 'unsloth_triton'` at pkg/moe.py:54, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_MOE_BACKEND='native_torch' leaves that branch, and what runs instead reaches no "
        "such kernel",
    ),
    (
        "a-name-given-back-unchanged-and-tested-by-the-caller",
        RESOLVED,
        "X_ATTN_BACKEND",
        Role.KERNEL,
        Polarity.ENABLE,
        "torch",
        "unset, it runs the branch of `not (backend == 'torch')` at pkg/attention.py:30, "
        "which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_ATTN_BACKEND='torch' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
    (
        "a-constant-the-value-lets-a-selector-return",
        SELECTED,
        "X_DISABLE_MOE_TRITON",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `backend == 'unsloth_triton'` at pkg/moe.py:51, which "
        "reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
        "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "X_DISABLE_MOE_TRITON='1' leaves that branch, and what runs instead reaches no such "
        "kernel",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "off", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_role_from_the_flow(
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
