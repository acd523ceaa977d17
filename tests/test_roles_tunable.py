"""PyTorch's TunableOp turned on by the tree's own code: an autotuner, so a kernel choice.

The tree is written on disk in the shape of the real code it stands for (the file it was
read from is named above it), scanned, and the role, polarity, off value and evidence chain
are checked; then `knobs init` and the bitwise export are run on it as a user would."""

from __future__ import annotations

from pathlib import Path

from knobregistry.registry import load_registry
from scanner import Polarity, Role
from tests.conftest import run_knobs
from tests.scanned import role_facts, scanned_knob

# huggingface/text-generation-inference db931fc, server/text_generation_server/models/
# flash_causal_lm.py:34 (SYSTEM from utils/import_utils.py), :1536-1537 (a presence test
# whose body turns tuning off for the memory probe) and :1595-1602 (unset or "1":
# torch.cuda.tunable.enable() and tuning_enable(True), then a GEMM is timed per length; any
# other value logs that TunableOp is off, :1643-1647).
WARMUP = {
    "pkg/__init__.py": "",
    "pkg/import_utils.py": 'import torch\n\nSYSTEM = "rocm" if torch.version.hip else "cuda"\n',
    "pkg/model.py": (
        "import os\n\n"
        "import torch\n\n"
        "from pkg.import_utils import SYSTEM\n\n\n"
        "class FlashCausalLM:\n"
        "    def warmup(self, batch):\n"
        '        if SYSTEM == "rocm" and os.environ.get("PYTORCH_TUNABLEOP_ENABLED", False):\n'
        "            torch.cuda.tunable.tuning_enable(False)\n"
        "        self.generate_token(batch)\n\n"
        '        if SYSTEM == "rocm":\n'
        "            if (\n"
        '                os.environ.get("PYTORCH_TUNABLEOP_ENABLED") is None\n'
        '                or os.environ.get("PYTORCH_TUNABLEOP_ENABLED") == "1"\n'
        "            ):\n"
        "                torch.cuda.tunable.enable()\n"
        '                if os.environ.get("PYTORCH_TUNABLEOP_TUNING") != "0":\n'
        "                    torch.cuda.tunable.tuning_enable(True)\n"
        "                for seqlen in (1, 2, 3):\n"
        "                    self.generate_token(seqlen)\n"
        "            else:\n"
        '                print("TunableOp is disabled")\n\n'
        "    def generate_token(self, batch):\n"
        "        return batch\n"
    ),
}


def test_turning_tunableop_on_is_an_autotuner(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, WARMUP, "PYTORCH_TUNABLEOP_ENABLED")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "",
        "unset, it runs the branch of `os.environ.get('PYTORCH_TUNABLEOP_ENABLED') is None "
        "or os...` at pkg/model.py:16, which reaches torch.cuda.tunable.enable() at "
        "pkg/model.py:19; PYTORCH_TUNABLEOP_ENABLED='' leaves that branch, and what runs "
        "instead reaches no such kernel",
    )


def test_turning_tunableop_off_is_no_autotuner(tmp_path: Path) -> None:
    """``tuning_enable(False)`` alone (the presence test's body) tunes nothing."""
    files = {
        "pkg/__init__.py": "",
        "pkg/model.py": (
            "import os\n\nimport torch\n\n\n"
            "def probe(batch):\n"
            '    if os.environ.get("PYTORCH_TUNABLEOP_ENABLED", False):\n'
            "        torch.cuda.tunable.tuning_enable(False)\n"
            "    return batch\n"
        ),
    }
    knob = scanned_knob(tmp_path, files, "PYTORCH_TUNABLEOP_ENABLED")
    assert knob.role is not Role.KERNEL


def test_the_recipe_writes_the_catalogue_value_the_tree_turns_tunableop_off_with(
    tmp_path: Path,
) -> None:
    """The catalogue has PYTORCH_TUNABLEOP_ENABLED as a setting of ROCm runs, "0" being
    torch's own default; the tree's own warmup turns TunableOp on unset, so the recipe
    without --platform writes "0" as a stack setting (the TRITON_INTERPRET case of
    tests/test_export_roles.py, whose deterministic value is not Triton's default, stays
    left)."""
    scanned_knob(tmp_path, WARMUP, "PYTORCH_TUNABLEOP_ENABLED")
    (tmp_path / ".git").mkdir()
    assert run_knobs("init", ".", cwd=tmp_path).returncode == 0
    entry = load_registry(tmp_path / "registry.yaml").knobs["PYTORCH_TUNABLEOP_ENABLED"]
    assert entry.role is Role.STACK
    assert entry.role_reason is not None
    assert entry.role_reason.startswith(
        "a determinism setting of hipBLASLt for rocm runs in the catalogue: '0' gives TunableOp "
        "GEMM tuning over rocBLAS and hipBLASLt algorithms, and is the library's own default "
        "(https://docs.pytorch.org/docs/stable/cuda.tunable.html); the tree's own code reads "
        "it: unset, it runs the branch of"
    )
    result = run_knobs("export", "--profile", "bitwise", cwd=tmp_path)
    assert result.returncode == 0
    assert "export PYTORCH_TUNABLEOP_ENABLED='0'\n" in result.stdout
