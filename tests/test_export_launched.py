"""A kernel choice the code leaves off and the tree's own launchers turn on.

Primus fd1eeab: `USE_TE_SWIGLU` defaults to "0" in its patch
(primus/backends/megatron/patches/te_patches/fused_bias_swiglu_patches.py:25) and the MLPerf
config exports it as 1 (examples/mlperf/llama2_70b/config_MI355X_1x8x1.sh:63); `K3P_KDA_CONV`
defaults to "default" in the model (kimi_delta_attention.py:613) and the Kimi launcher
exports `${K3P_KDA_CONV:-fla}` (run_kimi_k3_8L_official_pretrain_mi355x.sh:100). A run
started through those launchers has the kernel on, so the bitwise recipe turns it off.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from knobregistry.registry import load_registry
from tests.conftest import run_knobs, write_tree

MODEL = """
    import os

    from pkg.kernels import fused


    def swiglu(x):
        if os.getenv("DEMO_TE_SWIGLU", "0") == "1":
            return fused(x)
        return x * 2


    def conv(x):
        if os.environ.get("DEMO_KDA_CONV", "default") == "fla":
            return fused(x)
        return x + 1


    def quiet(x):
        if os.getenv("DEMO_QUIET_TRITON", "0") == "1":
            return fused(x)
        return x
    """

KERNELS = """
    import triton


    @triton.jit
    def _kernel(x_ptr):
        pass


    def fused(x):
        _kernel[(1,)](x)
        return x
    """

CONFIG = """
    #!/bin/bash
    export DEMO_TE_SWIGLU=1
    export DEMO_QUIET_TRITON=0
    """

KIMI = """
    #!/bin/bash
    export DEMO_KDA_CONV=${DEMO_KDA_CONV:-fla}
    python -m pkg.model
    """

RECIPE_LINES = "export DEMO_KDA_CONV='0'\nexport DEMO_TE_SWIGLU='0'\n"

SWIGLU_REVIEW = """\
export DEMO_TE_SWIGLU='0'
  role: kernel (proposed: DEMO_TE_SWIGLU='1' runs the branch of `os.getenv('DEMO_TE_SWIGLU', \
'0') == '1'` at pkg/model.py:7, which reaches calls fused (pkg/kernels.py:9) -> calls _kernel \
(pkg/kernels.py:5) -> @triton.jit _kernel at pkg/kernels.py:5; unset, it does not; off by \
default in its code, but launch/config.sh:2 sets it to '1')
  set by: profiles.bitwise.select[0]
"""


@pytest.fixture(scope="module")
def initialised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tree after `knobs init .`, run once for the module."""
    root = write_tree(
        tmp_path_factory.mktemp("export-launched") / "tree",
        {
            "pkg/__init__.py": "",
            "pkg/model.py": MODEL,
            "pkg/kernels.py": KERNELS,
            "launch/config.sh": CONFIG,
            "launch/kimi.sh": KIMI,
        },
    )
    (root / ".git").mkdir()
    assert run_knobs("init", ".", cwd=root).returncode == 0
    return root


@pytest.fixture
def tree(initialised: Path, tmp_path: Path) -> Path:
    """A copy of the initialised tree for each test (some write in it)."""
    return shutil.copytree(initialised, tmp_path / "tree")


def test_init_records_where_a_launcher_turns_a_default_off_kernel_on(tree: Path) -> None:
    registry = load_registry(tree / "registry.yaml")
    launched = {name: entry.launched_on for name, entry in registry.knobs.items()}
    assert launched == {
        "DEMO_KDA_CONV": "launch/kimi.sh:2 defaults it to 'fla'",
        "DEMO_QUIET_TRITON": None,  # the launcher sets it, to its off value
        "DEMO_TE_SWIGLU": "launch/config.sh:2 sets it to '1'",
    }
    text = (tree / "registry.yaml").read_text(encoding="utf-8")
    assert "    launched_on: \"launch/config.sh:2 sets it to '1'\"\n" in text


def test_export_turns_off_the_kernels_the_launchers_turn_on(tree: Path) -> None:
    done = run_knobs("export", "--profile", "bitwise", cwd=tree)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines(keepends=True) if "DEMO_" in line]
    assert "".join(lines) == RECIPE_LINES
    review = run_knobs("export", "--profile", "bitwise", "--explain", cwd=tree)
    assert SWIGLU_REVIEW in review.stdout


def test_a_kernel_no_launcher_turns_on_stays_as_the_code_has_it(tree: Path) -> None:
    done = run_knobs("export", "--profile", "bitwise", cwd=tree)
    assert "DEMO_QUIET_TRITON" not in done.stdout


def test_the_registry_entry_alone_selects_it_without_a_scan(tree: Path) -> None:
    (tree / "launch" / "config.sh").unlink()  # the registry says so; export does not scan
    done = run_knobs("export", "--profile", "bitwise", cwd=tree)
    assert "export DEMO_TE_SWIGLU='0'\n" in done.stdout


def test_explain_says_where_the_launcher_turns_it_on(tree: Path) -> None:
    done = run_knobs("explain", "DEMO_TE_SWIGLU", cwd=tree)
    assert done.returncode == 0, done.stderr
    assert "  launcher   launch/config.sh:2 sets it to '1'\n" in done.stdout
