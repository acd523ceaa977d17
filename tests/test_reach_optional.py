"""A call through a module name bound to a package the tree does not hold, imported as
optional (scanner.reach.optional): what it runs is not known.

ModelTC/lightllm fc72ffab: lightllm/utils/light_utils.py:4-12 (``try: import lightllm_kernel;
light_ops = getattr(lightllm_kernel, "ops", lightllm_kernel)`` / ``except: light_ops = None``),
lightllm/common/fused_moe/topk_select.py:27 (the switch), :136-169 (``cuda_grouped_topk``
asserts the package and calls ``light_ops.grouped_topk``), :189-219 (the Triton grouped top-k
where the switch is off), grouped_topk.py:93 (its ``@triton.jit`` kernel).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

LIGHT_UTILS = (
    "try:\n"
    "    import lightllm_kernel\n\n"
    '    light_ops = getattr(lightllm_kernel, "ops", lightllm_kernel)\n'
    "    HAS_LIGHTLLM_KERNEL = True\n"
    "except:\n"
    "    light_ops = None\n"
    "    HAS_LIGHTLLM_KERNEL = False\n"
)
TOPK = (
    "import os\n\nimport torch\nimport triton\nimport triton.language as tl\n\n"
    "from pkg.light_utils import light_ops\n\n"
    'use_cuda_grouped_topk = os.getenv("X_CUDA_GROUPED_TOPK", "False").upper() in '
    '["ON", "TRUE", "1"]\n\n\n'
    "@triton.jit\ndef grouped_topk_kernel(x_ptr, n):\n    tl.store(x_ptr, n)\n\n\n"
    "def triton_grouped_topk(x):\n    grouped_topk_kernel[(1,)](x, 1)\n    return x\n\n\n"
    "def cuda_grouped_topk(x):\n"
    '    assert light_ops is not None, "lightllm_kernel is not installed."\n'
    "    out = torch.empty_like(x)\n"
    "    light_ops.grouped_topk(out, x)\n"
    "    return out\n\n\n"
    "def select_experts(x, use_grouped_topk):\n"
    "    if use_grouped_topk:\n"
    "        if use_cuda_grouped_topk:\n"
    "            out = cuda_grouped_topk(x)\n"
    "        else:\n"
    "            out = triton_grouped_topk(x)\n"
    "    else:\n"
    "        out = x\n"
    "    return out\n"
)
OPTIONAL = {"pkg/__init__.py": "", "pkg/light_utils.py": LIGHT_UTILS, "pkg/topk.py": TOPK}
# The same module name bound to a package of the tree: its code is read, and reaches no kernel.
HELD = {
    **OPTIONAL,
    "pkg/light_utils.py": LIGHT_UTILS.replace("lightllm_kernel", "pkg.plain_ops").replace(
        'getattr(pkg.plain_ops, "ops", pkg.plain_ops)', "pkg.plain_ops"
    ),
    "pkg/plain_ops.py": "import torch\n\n\ndef grouped_topk(out, x):\n    out.copy_(x)\n",
}
# The submodule form: ``import lightllm_kernel.ops`` binds ``lightllm_kernel``.
DOTTED = {
    **OPTIONAL,
    "pkg/light_utils.py": (
        "try:\n    import lightllm_kernel.ops\n\n    HAS_LIGHTLLM_KERNEL = True\n"
        "except:\n    lightllm_kernel = None\n    HAS_LIGHTLLM_KERNEL = False\n"
    ),
    "pkg/topk.py": TOPK.replace(
        "from pkg.light_utils import light_ops", "from pkg.light_utils import lightllm_kernel"
    )
    .replace("light_ops is not None", "lightllm_kernel is not None")
    .replace("light_ops.grouped_topk", "lightllm_kernel.ops.grouped_topk"),
}

TRITON = (
    "unset, it runs the branch of `not use_cuda_grouped_topk` at pkg/topk.py:31, which reaches "
    "calls triton_grouped_topk (pkg/topk.py:17) -> calls grouped_topk_kernel (pkg/topk.py:13) "
    "-> @triton.jit grouped_topk_kernel at pkg/topk.py:13; X_CUDA_GROUPED_TOPK='1' "
)


@pytest.mark.parametrize(
    ("files", "role", "polarity", "reason"),
    [
        (
            OPTIONAL,
            Role.UNKNOWN,
            Polarity.ENABLE,
            TRITON + "runs code that calls pkg.light_utils.light_ops.grouped_topk "
            "(pkg/topk.py:25; lightllm_kernel, imported as optional), which the tree does not "
            "define: what it runs is not known",
        ),
        (
            DOTTED,
            Role.UNKNOWN,
            Polarity.ENABLE,
            TRITON + "runs code that calls pkg.light_utils.lightllm_kernel.ops.grouped_topk "
            "(pkg/topk.py:25; lightllm_kernel.ops, imported as optional), which the tree does not "
            "define: what it runs is not known",
        ),
        (
            HELD,
            Role.KERNEL,
            Polarity.DISABLE,  # '1' leads away from the kernel
            TRITON + "leaves that branch, and what runs instead reaches no such kernel",
        ),
    ],
    ids=["a-package-the-tree-does-not-hold", "a-submodule-imported-whole", "a-package-of-the-tree"],
)
def test_a_call_into_an_optional_package(
    tmp_path: Path, files: dict[str, str], role: Role, polarity: Polarity, reason: str
) -> None:
    knob = scanned_knob(tmp_path, files, "X_CUDA_GROUPED_TOPK")
    assert role_facts(knob) == (role, polarity, "0", reason)
