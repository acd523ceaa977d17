"""A variable's value put in a field of an object of the tree's class, and a kernel chosen
by a function's own import: each followed to the code that decides with it.

Each tree is a small copy, on disk, of the real code named above it (InternLM/xtuner
b934f46); it is scanned and the role, polarity, off value and evidence are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import KERNEL, bitwise_exports, role_facts, scanned_knob

# xtuner model/base.py:128 (the config field), model/dense/dense.py:244-250 (its read, the
# layer's forward rebound to its compiled self).
MODEL = {
    "pkg/__init__.py": "",
    "pkg/config.py": (
        "class ModelConfig:\n"
        "    compile_cfg: bool | None = None\n\n"
        "    def __init__(self, compile_cfg=None):\n"
        "        self.compile_cfg = compile_cfg\n"
    ),
    "pkg/model.py": (
        "import torch\n\n\n"
        "class Model:\n"
        "    def __init__(self, config, layers):\n"
        "        self.config = config\n"
        "        for layer in layers:\n"
        "            if self.config.compile_cfg:\n"
        "                layer.forward = torch.compile(layer.forward, fullgraph=True)\n"
    ),
}

# xtuner examples/v1/config/sft_qwen3p5.py:13-14, :29, :33: the config file reads the
# variable into a module name and hands it to the config class as a keyword.
HANDED = {
    **MODEL,
    "examples/sft.py": (
        "import os\n\n"
        "from pkg.config import ModelConfig\n\n\n"
        "def _get_bool_env(name: str, default: bool = False) -> bool:\n"
        '    return os.environ.get(name, "1" if default else "0").lower() in '
        '("1", "true", "yes", "on")\n\n\n'
        'model_compile = _get_bool_env("MODEL_COMPILE", True)\n'
        "model_cfg = ModelConfig(compile_cfg=model_compile)\n"
    ),
}

# xtuner examples/v1/config/sft_glm5p2.py:52: the field set on the object.
STORED = {
    **MODEL,
    "examples/sft.py": (
        "import os\n\n"
        "from pkg.config import ModelConfig\n\n\n"
        "model_cfg = ModelConfig()\n"
        'model_cfg.compile_cfg = os.environ.get("MODEL_COMPILE", "1") == "1"\n'
    ),
}

COMPILED = (
    "unset, it runs the branch of `self.config.compile_cfg` at pkg/model.py:8, which reaches "
    "torch.compile at pkg/model.py:9; MODEL_COMPILE='0' leaves that branch, and what runs "
    "instead reaches no such kernel"
)


@pytest.mark.parametrize("files", [HANDED, STORED], ids=["keyword", "attribute"])
def test_a_value_put_in_a_field_is_followed_to_its_reads(
    tmp_path: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, files, "MODEL_COMPILE")
    assert role_facts(knob) == (Role.KERNEL, Polarity.ENABLE, "0", COMPILED)
    assert "export MODEL_COMPILE='0'" in bitwise_exports(tmp_path, monkeypatch)


# xtuner ops/moe/__init__.py:17-31: the function imported in each arm of the test is
# returned after it; ops/moe/cuda/group_gemm.py (a Triton kernel), here against plain torch.
IMPORTED = {
    "pkg/__init__.py": "",
    "pkg/kernels.py": KERNEL,
    "pkg/native.py": (
        "import torch\n\n\ndef rms_norm(x):\n"
        "    return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
    ),
    "pkg/ops.py": (
        "import os\n\n\n"
        "def get_rms_norm():\n"
        '    if os.environ.get("PKG_NATIVE_NORM", "0") == "1":\n'
        "        from pkg.native import rms_norm as norm\n\n"
        '        print("native norm")\n'
        "    else:\n"
        "        from pkg.kernels import fused_rms_norm as norm\n"
        "    return norm\n"
    ),
}


def test_a_function_imported_in_a_branch_and_returned_after_it_is_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    knob = scanned_knob(tmp_path, IMPORTED, "PKG_NATIVE_NORM")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
        "unset, it runs the branch of `not (os.environ.get('PKG_NATIVE_NORM', '0') == '1')` at "
        "pkg/ops.py:5, which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls "
        "_fwd_kernel (pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
        "PKG_NATIVE_NORM='1' leaves that branch, and what runs instead reaches no such kernel",
    )
    assert "export PKG_NATIVE_NORM='1'" in bitwise_exports(tmp_path, monkeypatch)
