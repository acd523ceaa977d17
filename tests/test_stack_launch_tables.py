"""A library's variable that the tree sets for it, to the value that turns the library's kernel
on: the recipe sets the library's plain value.

Each case is a small tree on disk in the shape of the real code it stands for (the file it
was read from is named above it); the writes the scan finds, and what `knobs init` and the
bitwise export make of them, are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from knobregistry.cli import main
from scanner import WriteKind, scan
from tests.conftest import write_tree

# NVIDIA-NeMo/Megatron-Bridge 067f987 src/megatron/bridge/training/config.py:965 (the field),
# :1971-1989 (apply_environment_variables installs the table with os.environ.setdefault) and
# :1992-2009 (runtime_config_update calls it first).
CONFIG = (
    "import os\n"
    "from dataclasses import dataclass, field\n\n\n"
    "@dataclass\n"
    "class ConfigContainer:\n"
    "    env_vars: dict = field(default_factory=dict)\n\n\n"
    "def apply_environment_variables(cfg: ConfigContainer) -> None:\n"
    "    for name, value in cfg.env_vars.items():\n"
    "        if not isinstance(name, str) or not name:\n"
    '            raise ValueError("Environment variable names must be non-empty strings.")\n'
    "        os.environ.setdefault(name, str(value))\n\n\n"
    "def runtime_config_update(cfg: ConfigContainer) -> None:\n"
    "    apply_environment_variables(cfg)\n"
)
# src/megatron/bridge/recipes/qwen/gb200/qwen3_moe.py:84-95 (a dict literal, with a spread of
# COMMON_RECIPE_ENV_VARS), recipes/nemotronh/gb200/nemotron_3_nano.py:178-179 (one key at a
# time) and recipes/utils/determinism_utils.py:38 (update).
RECIPE = (
    "from pkg.config import ConfigContainer\n"
    "from pkg.environment_utils import COMMON_RECIPE_ENV_VARS\n\n\n"
    "def qwen3_30b_a3b_config() -> ConfigContainer:\n"
    "    cfg = ConfigContainer()\n"
    "    cfg.env_vars = {\n"
    "        **COMMON_RECIPE_ENV_VARS,\n"
    '        "CUDA_DEVICE_MAX_CONNECTIONS": 32,\n'
    '        "NVTE_CUTEDSL_FUSED_GROUPED_MLP": 1,\n'
    '        "NVTE_FWD_LAYERNORM_SM_MARGIN": 20,\n'
    '        "PYTORCH_CUDA_ALLOC_CONF": f"expandable_segments:{True}",\n'
    "    }\n"
    '    cfg.env_vars["USE_MNNVL"] = 1\n'
    "    return cfg\n\n\n"
    "def apply_determinism_overrides(cfg: ConfigContainer) -> None:\n"
    '    cfg.env_vars.update({"NCCL_ALGO": "Ring"})\n'
)
# The same attribute name filled where no loop installs it is still the table (matched by
# name); a loop over another attribute's items that writes a dict, not the environment, is
# no installer, so its table is nothing the launch sets.
OTHER = (
    "def tags(run, labels):\n"
    "    out = {}\n"
    "    for key, value in run.labels.items():\n"
    "        out.setdefault(key, str(value))\n"
    "    return out\n\n\n"
    "def make(run):\n"
    '    run.labels = {"NVTE_USE_FAST_MATH": 1}\n'
)
TREE = {
    "pkg/__init__.py": "",
    "pkg/config.py": CONFIG,
    "pkg/environment_utils.py": 'COMMON_RECIPE_ENV_VARS = {"NCCL_NVLS_ENABLE": 0}\n',
    "pkg/recipes/qwen3_moe.py": RECIPE,
    "pkg/other.py": OTHER,
}


def test_the_entries_of_a_table_the_tree_installs_are_writes_of_the_launch(
    tmp_path: Path,
) -> None:
    root = write_tree(tmp_path, TREE)
    result = scan([root], root=root, jobs=1)
    tabled = [w for w in result.writes if w.kind is WriteKind.BLOCK]
    assert [(w.name, w.value, w.path, w.line) for w in tabled] == [
        ("CUDA_DEVICE_MAX_CONNECTIONS", "32", "pkg/recipes/qwen3_moe.py", 9),
        ("NVTE_CUTEDSL_FUSED_GROUPED_MLP", "1", "pkg/recipes/qwen3_moe.py", 10),
        ("NVTE_FWD_LAYERNORM_SM_MARGIN", "20", "pkg/recipes/qwen3_moe.py", 11),
        ("USE_MNNVL", "1", "pkg/recipes/qwen3_moe.py", 14),
        ("NCCL_ALGO", "Ring", "pkg/recipes/qwen3_moe.py", 19),
    ]
    assert {w.via for w in tabled} == {"pkg.config.apply_environment_variables"}
    assert {w.function for w in tabled} == {
        "qwen3_30b_a3b_config",
        "apply_determinism_overrides",
    }
    assert all(w.launches for w in tabled)


def test_init_and_export_set_the_te_kernel_the_recipe_tables_turn_on_to_its_plain_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {**TREE, "requirements.txt": "transformer-engine\n"})
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    init = runner.invoke(main, ["init", "."])
    assert init.exit_code == 0, init.output
    assert (
        "Stack settings the project's launchers set: NCCL_ALGO, NVTE_CUTEDSL_FUSED_GROUPED_MLP;"
    ) in init.stdout
    exported = runner.invoke(main, ["export", "--profile", "bitwise"])
    assert exported.exit_code == 0, exported.output
    lines = exported.stdout.splitlines()
    assert "export NVTE_CUTEDSL_FUSED_GROUPED_MLP='0'" in lines
    assert "export NCCL_ALGO='Ring'" in lines
    assert not any("NVTE_USE_FAST_MATH" in line for line in lines)  # no installer's table


# AI-Hypercomputer/maxtext e591f30 src/maxtext/layers/attention_op.py (imports Transformer
# Engine's JAX DotProductAttention for attention=cudnn_flash_te) and
# tools/orchestration/gpu_multi_process_run.sh:31 (exports NVTE_FUSED_ATTN=1).
ATTENTION_OP = (
    "from transformer_engine.jax.flax.transformer import DotProductAttention\n\n\n"
    "def cudnn_flash_attention(query, key, value):\n"
    "    return DotProductAttention(head_dim=query.shape[-1])(query, key, value)\n"
)
LAUNCHER = (
    "#!/bin/bash\n"
    'if [[ "$USE_GPUDIRECT" == "tcpx" ]]; then\n'
    "    export NVTE_FUSED_ATTN=1\n"
    "fi\n"
    "python3 -m maxtext.trainers.pre_train.train\n"
)
# A tree that also uses Transformer Engine's PyTorch side (transformer_engine 2.9.0
# pytorch/attention/dot_product_attention/utils.py:403 reads the same variable, on by
# default, and 0 hands attention to other backends): no line.
TORCH_SIDE = "import transformer_engine.pytorch as te\n\n\nLinear = te.Linear\n"


@pytest.mark.parametrize(
    ("files", "written"),
    [
        pytest.param({}, True, id="jax-only"),
        pytest.param({"src/layers/linear.py": TORCH_SIDE}, False, id="pytorch-too"),
    ],
)
def test_te_jax_fused_attention_is_set_off_only_where_te_pytorch_is_not_used(
    tmp_path: Path, files: dict[str, str], written: bool
) -> None:
    tree = {
        "src/layers/attention_op.py": ATTENTION_OP,
        "tools/gpu_multi_process_run.sh": LAUNCHER,
        **files,
    }
    write_tree(tmp_path, tree)
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        init = runner.invoke(main, ["init", "."])
        assert init.exit_code == 0, init.output
        exported = runner.invoke(main, ["export", "--profile", "bitwise"])
        assert exported.exit_code == 0, exported.output
        checked = runner.invoke(main, ["check"])
        assert checked.exit_code == 0, checked.output
    assert ("export NVTE_FUSED_ATTN='0'" in exported.stdout.splitlines()) is written


# NVIDIA-NeMo/RL 7ea279a tests/test_suites/llm/performance/
# grpo-deepseek-v3-64n8g-fp8-async-1off.sh:23-30 (exports VLLM_USE_FLASHINFER_MOE_FP8=1 before
# the GRPO run, whose rollouts run vLLM).
GRPO_LAUNCHER = (
    "#!/bin/bash\n"
    "# Use FlashInfer MoE kernels for better fp8 inference performance\n"
    "export VLLM_USE_FLASHINFER_MOE_FP8=1\n"
    "export VLLM_FLASHINFER_MOE_BACKEND=latency\n"
    "uv run examples/run_grpo.py --config $CONFIG_PATH\n"
)


def test_a_launcher_that_turns_vllms_flashinfer_fp8_moe_on_gets_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(
        tmp_path,
        {
            "requirements.txt": "vllm\n",
            "src/rollout.py": "import vllm\n",
            "tests/grpo-fp8.sh": GRPO_LAUNCHER,
        },
    )
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    init = runner.invoke(main, ["init", "."])
    assert init.exit_code == 0, init.output
    assert "Stack settings the project's launchers set: VLLM_USE_FLASHINFER_MOE_FP8;" in (
        init.stdout
    )
    exported = runner.invoke(main, ["export", "--profile", "bitwise"])
    assert exported.exit_code == 0, exported.output
    assert "export VLLM_USE_FLASHINFER_MOE_FP8='0'" in exported.stdout.splitlines()
