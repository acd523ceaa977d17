"""A compile API bound to a name to be applied later, and TorchScript, which is no kernel.

ROCm/TransformerEngine ac80527 transformer_engine/pytorch/jit.py:15-22 binds the decorator its
fusions take: ``jit_fuser = torch.jit.script``, then ``jit_fuser = torch.compile`` where
NVTE_TORCH_COMPILE is "1" (its default), and ``@jit_fuser`` on the bias-GELU fusions
(:64-110). The bound ``torch.compile`` is the compiled path the default runs, as its call
would be (scanner.reach.marks.bound_api); TorchScript, what "0" leaves, runs torch's own ops
and times nothing, so it is no kernel mark (scanner.reach.marks, beside ``_CALLS``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

FUSIONS = (
    "\n\n@jit_fuser\n"
    "def bias_gelu_fused_(inp, bias):\n"
    "    x = inp + bias\n"
    "    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))\n"
)
# The tree's own form (jit.py:8-17): TorchScript bound first, torch.compile under the gate.
ROCM_TE = (
    "import os\n\nimport torch\n\n"
    "jit_fuser = torch.jit.script\n"
    'if torch.__version__ >= "2" and bool(int(os.getenv("NVTE_TORCH_COMPILE", "1"))):\n'
    "    jit_fuser = torch.compile\n" + FUSIONS
)
# Each side binds its own: torch.compile where the gate holds, TorchScript in the else.
ARMS = (
    "import os\n\nimport torch\n\n"
    'if bool(int(os.getenv("NVTE_TORCH_COMPILE", "1"))):\n'
    "    jit_fuser = torch.compile\n"
    "else:\n"
    "    jit_fuser = torch.jit.script\n" + FUSIONS
)
# TorchScript against eager: no side reaches a kernel.
SCRIPTED = (
    "import os\n\nimport torch\n\n\n"
    "def gelu(x):\n"
    "    return x * torch.sigmoid(1.702 * x)\n\n\n"
    'fused_gelu = torch.jit.script(gelu) if os.getenv("NVTE_TORCH_COMPILE", "1") == "1" '
    "else gelu\n"
)
# Bound, but not by an assignment: handed to a call, it is no compile of the tree's.
HANDED = (
    "import os\n\nimport torch\n\n"
    'if bool(int(os.getenv("NVTE_TORCH_COMPILE", "1"))):\n'
    '    print("compile with", torch.compile)\n'
)
WORDS = (
    "the name NVTE_TORCH_COMPILE says COMPILE, a hint of a kernel choice, but no code it "
    "reaches shows one: words alone are not evidence"
)


@pytest.mark.parametrize(
    ("source", "role", "reason"),
    [
        (
            ROCM_TE,
            Role.KERNEL,
            "unset, it runs the branch of `torch.__version__ >= '2' and bool(int(os.getenv("
            "'NVTE_TOR...` at pkg/jit.py:6, which reaches torch.compile, bound to be applied "
            "later at pkg/jit.py:7; NVTE_TORCH_COMPILE='0' leaves that branch, and what runs "
            "instead reaches no such kernel",
        ),
        (
            ARMS,
            Role.KERNEL,
            "unset, it runs the branch of `bool(int(os.getenv('NVTE_TORCH_COMPILE', '1')))` at "
            "pkg/jit.py:5, which reaches torch.compile, bound to be applied later at "
            "pkg/jit.py:6; NVTE_TORCH_COMPILE='0' leaves that branch, and what runs instead "
            "reaches no such kernel",
        ),
        (SCRIPTED, Role.UNKNOWN, WORDS),
        (HANDED, Role.UNKNOWN, WORDS),
    ],
    ids=["rocm-te-bound-after-torchscript", "each-arm-binds-one", "torchscript-only", "handed"],
)
def test_a_compile_bound_to_a_name(tmp_path: Path, source: str, role: Role, reason: str) -> None:
    files = {"pkg/__init__.py": "", "pkg/jit.py": source}
    knob = scanned_knob(tmp_path, files, "NVTE_TORCH_COMPILE")
    assert role_facts(knob) == (role, Polarity.ENABLE, "0", reason)
