"""A predicate the variable decides only when set: unset, it returns what the run computes.

state-spaces/mamba at e9594ce1, mamba_ssm/utils/determinism.py:21-27::

    env = os.environ.get('MAMBA_DETERMINISTIC')
    if env:
        return env[0] == '1'
    return torch.are_deterministic_algorithms_enabled()

and its callers (ops/triton/ssd_chunk_scan.py:1460, :1487-1500 and the kernel at :601-604):
``deterministic = use_deterministic_mode()`` handed to a Triton kernel's launch as
``DETERMINISTIC_REDUCTION=deterministic``, where the kernel stores each tile's part when it
holds and adds it with ``tl.atomic_add`` when it does not. The knob is a switch ('1' on, '0'
off) whose state unset the run computes; '1' leaves the atomic add whatever that is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, Polarity, Role
from tests.scanned import scanned_knob

DETERMINISM = (
    "import os\n\nimport torch\n\n\n"
    "def use_deterministic_mode():\n"
    "    env = os.environ.get('X_DETERMINISTIC')\n"
    "    if env:\n"
    "        return env[0] == '1'\n"
    "    return torch.are_deterministic_algorithms_enabled()\n"
)

SCAN = (
    "import torch\nimport triton\nimport triton.language as tl\n\n"
    "from pkg.determinism import use_deterministic_mode\n\n\n"
    "@triton.jit\n"
    "def _scan_bwd_kernel(x_ptr, out_ptr, DETERMINISTIC_REDUCTION: tl.constexpr):\n"
    "    x = tl.load(x_ptr)\n"
    "    if DETERMINISTIC_REDUCTION:\n"
    "        tl.store(out_ptr, x)\n"
    "    else:\n"
    "        tl.atomic_add(out_ptr, x)\n\n\n"
    "def scan_bwd(x):\n"
    "    deterministic = use_deterministic_mode()\n"
    "    out = torch.zeros_like(x)\n"
    "    _scan_bwd_kernel[(1,)](x, out, DETERMINISTIC_REDUCTION=deterministic)\n"
    "    return out\n"
)

TREE = {"pkg/__init__.py": "", "pkg/determinism.py": DETERMINISM, "pkg/scan.py": SCAN}

LEAVES = (
    "unset, it may run the branch of `not DETERMINISTIC_REDUCTION` at pkg/scan.py:11, which "
    "reaches triton.language.atomic_add at pkg/scan.py:14; X_DETERMINISTIC='1' leaves that "
    "branch, and what runs instead reaches no such kernel"
)


def test_the_read_is_a_switch_whose_state_unset_the_run_computes(tmp_path: Path) -> None:
    """Not a value: '1' and '0' decide, unset is left to the run (os.environ.get falls back
    to None, where os.environ[N] would raise)."""
    knob = scanned_knob(tmp_path, TREE, "X_DETERMINISTIC")
    site = knob.sites[0]
    assert (knob.kind, knob.default_on, knob.on_value, knob.off_value) == (
        GateKind.BOOLEAN,
        None,
        "1",
        "0",
    )
    assert (site.path, site.line, site.column) == ("pkg/determinism.py", 7, 11)


@pytest.mark.parametrize(
    ("name", "files", "role", "polarity", "reason"),
    [
        (
            "a-truth-handed-to-a-kernel-launch-that-adds-atomically-when-false",
            TREE,
            Role.KERNEL,
            Polarity.DISABLE,
            LEAVES,
        ),
        (
            # the same kernel launched by a function of the tree the value is handed to:
            # followed into it, then into the launch
            "the-kernel-called-through-a-wrapper-of-the-tree",
            {
                **TREE,
                "pkg/scan.py": SCAN.replace(
                    "_scan_bwd_kernel[(1,)](x, out, DETERMINISTIC_REDUCTION=deterministic)",
                    "_launch(x, out, DETERMINISTIC_REDUCTION=deterministic)",
                ).replace(
                    "def scan_bwd(x):",
                    "def _launch(x, out, DETERMINISTIC_REDUCTION):\n"
                    "    _scan_bwd_kernel[(1,)](x, out, DETERMINISTIC_REDUCTION)\n\n\n"
                    "def scan_bwd(x):",
                ),
            },
            Role.KERNEL,
            Polarity.DISABLE,
            LEAVES,
        ),
        (
            # the function hands the value itself back, not a truth of it: no switch
            "the-value-itself-returned",
            {
                **TREE,
                "pkg/determinism.py": DETERMINISM.replace("return env[0] == '1'", "return env"),
            },
            Role.VALUE,
            Polarity.ENABLE,
            "not a switch: the code uses its value",
        ),
    ],
)
def test_the_kernel_launch_decides_the_role(
    tmp_path: Path,
    name: str,
    files: dict[str, str],
    role: Role,
    polarity: Polarity,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, "X_DETERMINISTIC")
    assert (knob.role, knob.polarity, knob.role_reason) == (role, polarity, reason), name


# AMD-AGI/Primus fd1eeab, primus/backends/megatron/core/transformer/v4_attention_kernels/
# _triton_v1/v4_csa_attention_bwd.py:2283 (the launch) and :413-428 (the kernel): the value
# handed to the launch as STORE_DPOOL, and "1" drops the gradient's part with its atomic add,
# `else: pass` in its place ("so the STORE_DPOOL=False variant truly drops the two trailing
# tl.dot ops + atomic"): no kernel choice, the work is left undone.
DROPPED = {
    "pkg/__init__.py": "",
    "pkg/bwd.py": (
        "import os\n\nimport torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def _bwd_kernel(x_ptr, dq_ptr, dpool_ptr, STORE_DPOOL: tl.constexpr):\n"
        "    x = tl.load(x_ptr)\n"
        "    tl.store(dq_ptr, x)\n"
        "    if STORE_DPOOL:\n"
        "        tl.atomic_add(dpool_ptr, x * 2)\n"
        "    else:\n"
        "        # keep this branch a no-op\n"
        "        pass\n\n\n"
        "def bwd(x):\n"
        "    dq, dpool = torch.empty_like(x), torch.zeros_like(x)\n"
        "    _bwd_kernel[(1,)](\n"
        "        x, dq, dpool,\n"
        '        STORE_DPOOL=(os.getenv("X_SKIP_DPOOL_ATOMIC", "0") != "1"),\n'
        "    )\n"
        "    return dq, dpool\n"
    ),
}


def test_a_launch_argument_that_drops_the_work_is_no_kernel_choice(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, DROPPED, "X_SKIP_DPOOL_ATOMIC")
    assert (knob.role, knob.role_reason) == (
        Role.UNKNOWN,
        "unset, it runs the branch of `STORE_DPOOL` at pkg/bwd.py:12, which reaches "
        "triton.language.atomic_add at pkg/bwd.py:13; X_SKIP_DPOOL_ATOMIC='1' skips that "
        "branch and runs nothing in its place, so the work it does may be left undone: a "
        "person must say",
    )
