"""A YAML mapping under a key that names a config field the tree's own class installs into
the environment: each entry is a write of the launch (ROLL's Hydra ``system_envs:``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import WriteKind, scan
from tests.conftest import write_tree
from tests.scanned import bitwise_exports

# alibaba/ROLL 8eb27cc2 roll/configs/base_config.py:232 (the field), :342 (__post_init__ does
# os.environ.update(self.system_envs)); worker_config.py:134 the same field of a worker.
CONFIG = (
    "import os\n"
    "from dataclasses import dataclass, field\n\n\n"
    "@dataclass\n"
    "class BaseConfig:\n"
    "    exp_name: str = 'x'\n"
    "    system_envs: dict = field(default_factory=dict)\n\n"
    "    def __post_init__(self):\n"
    "        os.environ['PROFILER_OUTPUT_DIR'] = self.exp_name\n"
    "        os.environ.update(self.system_envs)\n"
)
# examples/qwen2.5-0.5B-agentic/agentic_sokoban_rollout_mock_dump.yaml:13-18, and a worker's
# own block (examples/agentic_deepeyes/deepeyes.yaml:56-60).
SOKOBAN = (
    "render_save_dir: ./output/render\n"
    "system_envs:\n"
    "  NCCL_ALGO: Ring\n"
    "  NVTE_ALLOW_NONDETERMINISTIC_ALGO: '0'\n"
    "  CUBLAS_WORKSPACE_CONFIG: ':4096:8'\n"
    "  DETERMINISTIC_MODE: '1'\n"
    "actor_train:\n"
    "  system_envs:\n"
    "    NVTE_FLASH_ATTN: '1'\n"
)
# maxtext e591f30 src/maxtext/eval/runner/server_manager.py:518, :560: an attribute set in
# __init__ from a parameter, not a field a config file fills; a k8s-like `env:` mapping is
# then nothing the launch sets.
SERVER = (
    "import os\n\n\n"
    "class ServerManager:\n"
    "    def __init__(self, env=None):\n"
    "        self.env = env\n\n"
    "    def start(self):\n"
    "        os.environ.update(self.env)\n"
)
TREE = {
    "roll/__init__.py": "",
    "roll/configs/base_config.py": CONFIG,
    "roll/server.py": SERVER,
    "examples/sokoban.yaml": SOKOBAN,
    "deploy/pod.yaml": "env:\n  NVTE_FUSED_ATTN: '1'\n",
}


def test_a_yaml_mapping_under_a_field_the_config_class_installs_is_writes(tmp_path: Path) -> None:
    root = write_tree(tmp_path, TREE)
    result = scan([root], root=root, jobs=1)
    yaml_writes = [w for w in result.writes if w.path.endswith(".yaml")]
    assert [(w.name, w.value, w.line, w.function) for w in yaml_writes] == [
        ("NCCL_ALGO", "Ring", 3, "system_envs"),
        ("NVTE_ALLOW_NONDETERMINISTIC_ALGO", "0", 4, "system_envs"),
        ("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 5, "system_envs"),
        ("DETERMINISTIC_MODE", "1", 6, "system_envs"),
        ("NVTE_FLASH_ATTN", "1", 9, "actor_train.system_envs"),
    ]
    assert all(w.kind is WriteKind.BLOCK and w.launches for w in yaml_writes)


def test_init_and_export_set_the_stack_settings_the_config_launches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {**TREE, "requirements.txt": "torch\n"})
    lines = bitwise_exports(tmp_path, monkeypatch)
    assert "export CUBLAS_WORKSPACE_CONFIG=':4096:8'" in lines
    assert "export NCCL_ALGO='Ring'" in lines
