"""A call through a local bound to a library's function in the enclosing function
(scanner.reach.modules ``_aliased``): it reaches the library, as the call it names would.

modelscope/ms-swift 3602360: swift/utils/env.py:12-13 (``use_hf_hub``: ``USE_HF``),
swift/utils/hub_utils.py:192-233 (``patch_kernels``: ``origin_get_kernel =
hub_kernels.get_kernel`` at :215; the nested ``patched_get_kernel`` calls it where
``use_hf_hub()`` holds, :218-219, and loads the same Hub kernel from a ModelScope snapshot with
``kernels.get_local_kernel`` otherwise, :226). Both sides load a Hub kernel: the value picks
where it is downloaded from, not whether a kernel runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

ENV = (
    "import os\n\nfrom transformers.utils import strtobool\n\n\n"
    "def use_hf_hub():\n"
    "    return strtobool(os.environ.get('USE_HF', '0'))\n"
)
HUB_UTILS = (
    "import importlib.util\n\nfrom .env import use_hf_hub\n\n\n"
    "def patch_kernels() -> bool:\n"
    "    if importlib.util.find_spec('kernels') is None:\n"
    "        return False\n"
    "    try:\n"
    "        from kernels import get_local_kernel\n"
    "        from transformers.integrations import hub_kernels\n"
    "    except ImportError:\n"
    "        return False\n\n"
    "    origin_get_kernel = hub_kernels.get_kernel\n\n"
    "    def patched_get_kernel(repo_id, *args, **kwargs):\n"
    "        if use_hf_hub():\n"
    "            return origin_get_kernel(repo_id, *args, **kwargs)\n"
    "        model_dir = repo_id.replace('/', '_')\n"
    "        return get_local_kernel(model_dir, repo_id)\n\n"
    "    hub_kernels.get_kernel = patched_get_kernel\n"
    "    return True\n"
)
SWIFT = {"pkg/__init__.py": "", "pkg/env.py": ENV, "pkg/hub_utils.py": HUB_UTILS}
# The same where the saved function is a plain one of the tree: the USE_HF side runs no kernel.
PLAIN = {
    **SWIFT,
    "pkg/hub_utils.py": HUB_UTILS.replace(
        "from transformers.integrations import hub_kernels",
        "from pkg import plain_hub as hub_kernels",
    ),
    "pkg/plain_hub.py": "def get_kernel(repo_id, *args, **kwargs):\n    return repo_id\n",
}

LOCAL = "Hugging Face kernels (compiled kernels loaded from the Hub) (kernels.get_local_kernel) at "


@pytest.mark.parametrize(
    ("files", "role", "polarity", "reason"),
    [
        (
            SWIFT,
            Role.UNKNOWN,
            Polarity.ENABLE,
            "each value reaches a kernel of its own: unset, " + LOCAL + "pkg/hub_utils.py:21; "
            "USE_HF='1', Hugging Face kernels, through transformers "
            "(transformers.integrations.hub_kernels.get_kernel) at pkg/hub_utils.py:19",
        ),
        (
            PLAIN,
            Role.KERNEL,
            Polarity.DISABLE,
            "unset, it runs the branch of `not use_hf_hub()` at pkg/hub_utils.py:18, which reaches "
            + LOCAL
            + "pkg/hub_utils.py:21; USE_HF='1' leaves that branch, and what runs instead reaches "
            "no such kernel",
        ),
    ],
    ids=["both-sides-load-a-hub-kernel", "the-saved-function-is-plain-code"],
)
def test_a_function_saved_in_the_enclosing_function(
    tmp_path: Path, files: dict[str, str], role: Role, polarity: Polarity, reason: str
) -> None:
    knob = scanned_knob(tmp_path, files, "USE_HF")
    assert role_facts(knob) == (role, polarity, "0", reason)


# ModelCloud/GPTQModel f4c327a1 gptqmodel/quantization/paroquant/optimization.py:800-845:
# the compiled path is reached through ``compile_fn = getattr(torch, "compile", None)``, a
# local bound to what ``getattr`` gets, called in the same function; the env flag is one
# term of an ``and`` the branch tests.
PAROQUANT = (
    "import os\nfrom functools import lru_cache\n\nimport torch\n\n\n"
    "def pseudo_quantize_dequant(weight):\n"
    "    return torch.round(weight)\n\n\n"
    "@lru_cache(maxsize=1)\n"
    "def _get_large_train_quant_compile():\n"
    "    compile_fn = getattr(torch, {name!r}, None)\n"
    "    if compile_fn is None:\n"
    "        return None\n"
    "    return compile_fn(pseudo_quantize_dequant, fullgraph=True)\n\n\n"
    "def quantize(weight):\n"
    "    should_compile = (\n"
    "        weight.device.type == 'cuda'\n"
    "        and os.environ.get('X_QUANT_COMPILE', '1') != '0'\n"
    "    )\n"
    "    if should_compile:\n"
    "        compiled = _get_large_train_quant_compile()\n"
    "        if compiled is not None:\n"
    "            return compiled(weight)\n"
    "    return pseudo_quantize_dequant(weight)\n"
)


@pytest.mark.parametrize(
    ("name", "role", "reason"),
    [
        (
            "compile",
            Role.KERNEL,
            "unset, it runs the branch of `should_compile` at pkg/opt.py:24, which reaches "
            "calls _get_large_train_quant_compile (pkg/opt.py:12) -> torch.compile at "
            "pkg/opt.py:16; X_QUANT_COMPILE='0' leaves that branch, and what runs instead "
            "reaches no such kernel",
        ),
        (
            "round",
            Role.UNKNOWN,
            "the name X_QUANT_COMPILE says QUANT (what is computed or trained) and COMPILE (a "
            "kernel choice): words alone do not say which, and no code it reaches shows a kernel",
        ),
    ],
    ids=["getattr-of-torch-compile", "getattr-of-a-plain-function"],
)
def test_a_function_a_local_gets_with_getattr(
    tmp_path: Path, name: str, role: Role, reason: str
) -> None:
    files = {"pkg/__init__.py": "", "pkg/opt.py": PAROQUANT.format(name=name)}
    knob = scanned_knob(tmp_path, files, "X_QUANT_COMPILE")
    assert role_facts(knob) == (role, Polarity.ENABLE, "0", reason)
