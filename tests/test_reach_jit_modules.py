"""A function of a module of C++/CUDA sources compiled at run time and loaded
(``tvm_ffi.load_module``, ``torch.utils.cpp_extension.load_inline``), called through the
helper that returns the module (``_jit_module(...).run(x)``), is a kernel; loading alone
(an availability probe) is not (scanner.reach.loaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role, scan
from tests.conftest import write_tree

# sgl-project/sglang python/sglang/kernels/jit/utils/compile/loader.py:49,270-273 (load_jit,
# _load: tvm_ffi.load_module), kernels/ops/attention/dsv4/wo_a.py:22,32-52 (a cached helper
# returning the module, whose .run the fused entry calls) and srt/models/deepseek_v4.py:
# 1533-1535,2964-2971 (the switch kept in __init__, the fused call beside torch's einsum).
TVM_FFI = {
    "pkg/__init__.py": "",
    "pkg/jit/__init__.py": "",
    "pkg/jit/loader.py": (
        "def _find_prebuilt(args):\n    return None\n\n\n"
        "def _load(library):\n"
        "    from tvm_ffi import load_module\n\n"
        "    return load_module(str(library))\n\n\n"
        "def load_jit(*args, cuda_files=None):\n"
        "    prebuilt = _find_prebuilt(args)\n"
        "    if prebuilt is not None:\n"
        "        return _load(prebuilt)\n"
        "    return _load(args[0] + '.so')\n"
    ),
    "pkg/wo_a.py": (
        "import functools\n\n"
        "from pkg.jit.loader import load_jit\n\n\n"
        "@functools.cache\n"
        "def _jit_module(groups):\n"
        '    return load_jit("wo_a", str(groups), cuda_files=["wo_a.cuh"])\n\n\n'
        "def fused_rope_wo_a(x, w):\n"
        "    module = _jit_module(w.shape[0])\n"
        "    module.run(x, w)\n"
        "    return x\n"
    ),
    "pkg/layer.py": (
        "import os\n\nimport torch\n\n"
        "from pkg.wo_a import fused_rope_wo_a\n\n\n"
        "class Layer:\n"
        "    def __init__(self):\n"
        '        self.use_fused_wo_a = os.environ.get("X_FUSED_WO_A", "1") != "0"\n\n'
        "    def forward(self, o, w):\n"
        "        if self.use_fused_wo_a:\n"
        "            return fused_rope_wo_a(o, w)\n"
        "        return torch.einsum('bgd,grd->bgr', o, w)\n"
    ),
}

# pytorch/pytorch torch/utils/cpp_extension.py (load_inline): a cached helper returns the
# extension, a function of it is called.
CPP_EXTENSION = {
    "pkg/__init__.py": "",
    "pkg/ext.py": (
        "import functools\n\n"
        "from torch.utils.cpp_extension import load_inline\n\n\n"
        "@functools.cache\n"
        "def _extension():\n"
        '    return load_inline("add", cpp_sources="", cuda_sources="")\n\n\n'
        "def fused_add(x):\n"
        "    return _extension().add(x)\n"
    ),
    "pkg/use.py": (
        "import os\n\n"
        "from pkg.ext import fused_add\n\n\n"
        "def add(x):\n"
        '    if os.environ.get("X_CUDA_ADD", "1") == "1":\n'
        "        return fused_add(x)\n"
        "    return x + x\n"
    ),
}

# vllm-project/vllm vllm/third_party/fmha_sm100/kvouter/interface.py:174-185 and
# cpp_backend.py:56-133: the variable unset asks whether the extension loads (a probe that
# builds it and returns a bool); what computes is elsewhere. Loading is no kernel.
PROBE = {
    "pkg/__init__.py": "",
    "pkg/cpp_backend.py": (
        "from torch.utils.cpp_extension import load\n\n\n"
        "def _jit_build_extension():\n"
        '    load(name="fmha", sources=["fmha.cu"], is_python_module=False)\n\n\n'
        "def cpp_backend_available():\n"
        "    try:\n"
        "        _jit_build_extension()\n"
        "    except Exception:\n"
        "        return False\n"
        "    return True\n"
    ),
    "pkg/interface.py": (
        "import os\n\n"
        "from pkg.cpp_backend import cpp_backend_available\n\n\n"
        "def backend():\n"
        '    env = os.environ.get("X_KVOUTER_CPP")\n'
        '    if env == "0":\n'
        '        return "python"\n'
        '    if env == "1":\n'
        '        return "cpp"\n'
        '    return "cpp" if cpp_backend_available() else "python"\n'
    ),
}


def test_loading_a_module_alone_is_no_kernel(tmp_path: Path) -> None:
    write_tree(tmp_path, PROBE)
    knob = scan([tmp_path], root=tmp_path, jobs=1).knob("X_KVOUTER_CPP")
    assert knob is not None
    assert knob.role is not Role.KERNEL


CASES = [
    (
        "a-module-loaded-by-tvm-ffi",
        TVM_FFI,
        "X_FUSED_WO_A",
        "unset, it runs the branch of `self.use_fused_wo_a` at pkg/layer.py:13, which reaches "
        "calls fused_rope_wo_a (pkg/wo_a.py:11) -> .run() of the module _jit_module loads "
        "(tvm_ffi.load_module at pkg/jit/loader.py:8) at pkg/wo_a.py:13; X_FUSED_WO_A='0' "
        "leaves that branch, and what runs instead reaches no such kernel",
    ),
    (
        "a-module-loaded-by-cpp-extension",
        CPP_EXTENSION,
        "X_CUDA_ADD",
        "unset, it runs the branch of `os.environ.get('X_CUDA_ADD', '1') == '1'` at "
        "pkg/use.py:7, which reaches calls fused_add (pkg/ext.py:11) -> .add() of the module "
        "_extension loads (torch.utils.cpp_extension.load_inline at pkg/ext.py:8) at "
        "pkg/ext.py:12; X_CUDA_ADD='0' leaves that branch, and what runs instead reaches no "
        "such kernel",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_module_compiled_and_loaded_is_a_kernel(
    tmp_path: Path, files: dict[str, str], name: str, reason: str
) -> None:
    write_tree(tmp_path, files)
    knob = scan([tmp_path], root=tmp_path, jobs=1).knob(name)
    assert knob is not None
    assert (knob.role, knob.polarity, knob.off_value, knob.role_reason) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        reason,
    )
