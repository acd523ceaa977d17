"""The failures of issue 38, each on a copy of the shape of the real code it came from.

tests/data/roles/ holds one small tree per class, each file citing the real file:line it
copies the shape of (unsloth, unsloth_zoo, Liger-Kernel, flash-linear-attention, FlagGems,
verl, Transformer Engine, FlashInfer, lmdeploy, axolotl). Each is copied, and `knobs init .`
then `knobs export --profile bitwise` run in it as a user would: the recipe writes what the
code shows a bitwise run needs, and never a line a user would have to delete; each knob's
role is what its branches reach, not what its name says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scanner import Polarity, Role, scan
from tests.conftest import run_knobs

FORMS = Path(__file__).parent / "data" / "roles"
# The stack's settings the catalogue adds to any Python project's recipe.
STACK = ("PYTHONHASHSEED", "TORCH_COMPILE_DISABLE")

RECIPES: list[tuple[str, list[str]]] = [
    # An autotune *result cache* and its folder: tuning runs either way, nothing to write.
    ("autotune-result-cache", []),
    # Kernels on every choice (triton, gluon, deepgemm): no plain one to write.
    ("backend-choice-among-kernels", []),
    # External fused backends or FLA's own Triton kernels, through a registry: nothing.
    ("backend-dispatch-disable", []),
    # flash-attn, cuDNN fused attention or PyTorch through `int(...) and ...`: never
    # NVTE_UNFUSED_ATTN=0 (the plain path), which the words of its name used to write.
    ("int-read-combined-with-and", []),
    # A cache folder: a value; the export writes nothing and exits 0.
    ("path-ending-in-cache", []),
    # `_AUTOTUNE_DISABLED = ... in ("0", ...)`: "0" is what turns autotuning off.
    ("polarity-from-a-bound-name", ["export LIGER_FUSED_MOE_AUTOTUNE='0'"]),
    # A tl.constexpr picks bf16 or fp32 operands in one kernel: what is computed.
    ("precision-constexpr-into-kernel", []),
    # "1" is Transformer Engine's plain update; the fused one is its extension's.
    ("precision-word-beside-implementation-word", ["export NVTE_UNFUSED_FP8_UPDATE='1'"]),
    # Read in __init__ and in a _mode() helper: the branches, not the function names, decide.
    (
        "reading-function-name",
        [
            "export NVTE_BIAS_GELU_NVFUSION='0'",
            "export NVTE_TORCH_COMPILE='0'",
            "export UNSLOTH_MOE_ROUTED_KERNEL='0'",
        ],
    ),
    # A Triton FP8 cast, off by "1".
    ("triton-fp8-disable", ["export VERL_DISABLE_TRITON_FP8='1'"]),
    # Never UNSLOTH_EAGER_DECODE=0 (compiled decode); the compile error and worker switches
    # are no kernel choices; the fused linear+logprobs kernel is off by "0".
    ("unsloth-compile-switches", ["export UNSLOTH_FUSED_LINEAR='0'"]),
]


def _copy(form: str, tmp_path: Path) -> Path:
    root = tmp_path / form
    shutil.copytree(FORMS / form, root)
    return root


@pytest.mark.parametrize(("form", "lines"), RECIPES, ids=[r[0] for r in RECIPES])
def test_the_recipe_writes_what_the_code_shows(form: str, lines: list[str], tmp_path: Path) -> None:
    root = _copy(form, tmp_path)
    assert run_knobs("init", ".", cwd=root).returncode == 0
    result = run_knobs("export", "--profile", "bitwise", cwd=root)
    written = [
        line
        for line in result.stdout.splitlines()
        if line.startswith(("export ", "unset ")) and line.split()[1].split("=")[0] not in STACK
    ]
    assert (result.returncode, written) == (0, lines)


ROLES: list[tuple[str, str, Role, Polarity | None, str | None]] = [
    ("autotune-result-cache", "FLA_CACHE_RESULTS", Role.UNKNOWN, None, None),
    ("autotune-result-cache", "FLAGGEMS_ENABLE_DISK_CACHE", Role.UNKNOWN, None, None),
    ("backend-dispatch-disable", "FLA_DISABLE_BACKEND_DISPATCH", Role.UNKNOWN, None, None),
    ("precision-constexpr-into-kernel", "WALL_ATTN_DKV_DIAG_BF16", Role.FEATURE, None, None),
    ("polarity-from-a-bound-name", "LIGER_FUSED_MOE_AUTOTUNE", Role.KERNEL, Polarity.ENABLE, "0"),
    ("triton-fp8-disable", "VERL_DISABLE_TRITON_FP8", Role.KERNEL, Polarity.DISABLE, "0"),
    ("unsloth-compile-switches", "UNSLOTH_EAGER_DECODE", Role.UNKNOWN, None, None),
    ("unsloth-compile-switches", "UNSLOTH_COMPILE_IGNORE_ERRORS", Role.UNKNOWN, None, None),
    ("unsloth-compile-switches", "UNSLOTH_FORCE_SINGLE_COMPILE_WORKER", Role.UNKNOWN, None, None),
    ("unsloth-compile-switches", "UNSLOTH_FUSED_LINEAR", Role.KERNEL, Polarity.ENABLE, "0"),
    (
        "precision-word-beside-implementation-word",
        "NVTE_UNFUSED_FP8_UPDATE",
        Role.KERNEL,
        Polarity.DISABLE,
        "0",
    ),
    (
        "precision-word-beside-implementation-word",
        "LMDEPLOY_STATIC_FP8_USE_COMPILED_QUANT",
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
    ),
    ("reading-function-name", "NVTE_BIAS_GELU_NVFUSION", Role.KERNEL, Polarity.ENABLE, "0"),
    ("reading-function-name", "FLASHINFER_KDA_T1_FAST_PATH", Role.UNKNOWN, None, None),
    ("reading-function-name", "UNSLOTH_MOE_ROUTED_KERNEL", Role.KERNEL, None, "0"),
    ("int-read-combined-with-and", "NVTE_UNFUSED_ATTN", Role.UNKNOWN, None, None),
]


@pytest.mark.parametrize(
    ("form", "name", "role", "polarity", "off"),
    ROLES,
    ids=[f"{r[0]}-{r[1]}" for r in ROLES],
)
def test_each_knob_s_role_is_what_its_branches_reach(
    form: str, name: str, role: Role, polarity: Polarity | None, off: str | None
) -> None:
    root = FORMS / form
    knob = scan([root], root=root, jobs=1).knob(name)
    assert knob is not None
    assert knob.role is role, knob.role_reason
    if polarity is not None:
        assert knob.polarity is polarity
    if off is not None:
        assert knob.off_value == off
