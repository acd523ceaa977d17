"""Roles through a module-level flag one side of a module-level gate sets
(scanner.reach.module_flags), tested by the module's functions further on.

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it), scanned; the role, the knob's polarity and off value, and
the whole evidence chain are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import KERNEL, role_facts, scanned_knob

# huggingface/text-generation-inference db931fc, server/text_generation_server/models/
# custom_modeling/bloom_modeling.py:42-52 (the flag False, then set True inside a `try` of
# the gate's body) and :380-400 (tested in a method: the kernel, else plain torch).
SET_IN_A_TRY = (
    "import os\n\nimport torch\n\n"
    "ENABLED = False\n"
    "if torch.cuda.is_available() and not "
    'os.environ.get("X_DISABLE_CUSTOM", "False") == "True":\n'
    "    try:\n"
    "        from pkg.kernels import fused_rms_norm\n\n"
    "        ENABLED = True\n"
    "    except ImportError:\n"
    "        pass\n\n\n"
    "class Norm(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        if ENABLED and x.shape[-1] < 4096:\n"
    "            return fused_rms_norm(x)\n"
    "        return torch.nn.functional.rms_norm(x, x.shape[-1:])\n"
)

REASON = (
    "unset, it runs the branch of `ENABLED and x.shape[-1] < 4096` at pkg/model.py:{line}, "
    "which reaches calls fused_rms_norm (pkg/kernels.py:10) -> calls _fwd_kernel "
    "(pkg/kernels.py:6) -> @triton.jit _fwd_kernel at pkg/kernels.py:6; "
    "X_DISABLE_CUSTOM='True' leaves that branch, and what runs instead reaches no such kernel"
)
UNKNOWN = "nothing in its name, what it feeds or the functions that read it says what it controls"

CASES = [
    (
        "a-flag-set-in-a-try-of-the-gate-and-tested-in-a-method",
        SET_IN_A_TRY,
        Role.KERNEL,
        REASON.format(line=17),
    ),
    (
        "a-flag-set-in-the-gate-itself",
        SET_IN_A_TRY.replace(
            "    try:\n        from pkg.kernels import fused_rms_norm\n\n"
            "        ENABLED = True\n    except ImportError:\n        pass\n",
            "    from pkg.kernels import fused_rms_norm\n\n    ENABLED = True\n",
        ),
        Role.KERNEL,
        REASON.format(line=14),
    ),
    (
        # the module never set the flag before the gate: what it holds where the other
        # side runs is not known (a NameError, or what another module put there)
        "a-flag-with-no-value-before-the-gate-is-not-followed",
        SET_IN_A_TRY.replace("ENABLED = False\n", ""),
        Role.UNKNOWN,
        UNKNOWN,
    ),
    (
        # the other side sets the flag too: it says nothing of which side ran
        "a-flag-both-sides-set-is-not-followed",
        SET_IN_A_TRY.replace("        pass\n", "        pass\nelse:\n    ENABLED = True\n"),
        Role.UNKNOWN,
        UNKNOWN,
    ),
]


@pytest.mark.parametrize(
    ("model", "role", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_role_through_a_module_flag(tmp_path: Path, model: str, role: Role, reason: str) -> None:
    files = {"pkg/__init__.py": "", "pkg/kernels.py": KERNEL, "pkg/model.py": model}
    knob = scanned_knob(tmp_path, files, "X_DISABLE_CUSTOM")
    assert role_facts(knob) == (role, Polarity.DISABLE, "False", reason)
