"""`knobs export --check-env`: does this process's environment already satisfy the profile?"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, write_tree
from tests.seed_recipe import RECIPE_ENV

REGISTRY = """
version: 1
knobs:
  DEMO_ATTN_TRITON:
    default: "1"
    default_on: true
    triage: breaks-bitwise
  DEMO_NORM_TRITON:
    default: "1"
    default_on: true
    triage: reproducible
  DEMO_TRACE:
    default_on: false
    triage: exempt
    reason: diagnostics only
external:
  NCCL_ALGO:
    description: Collective algorithm.
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    env:
      NCCL_ALGO: Ring
    select:
      - {default_on: true, triage_not: reproducible, set: "off"}
      - {match: [DEMO_TRACE], set: default}
"""


def check_env(
    cwd: Path, env: dict[str, str], *args: str, registry: str = "registry.yaml"
) -> subprocess.CompletedProcess[str]:
    """`knobs export --check-env` with exactly ``env`` (plus PATH) as its environment."""
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "knobregistry",
            "export",
            "--registry",
            registry,
            "--check-env",
            *args,
        ],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"registry.yaml": REGISTRY})


def test_satisfied(project: Path) -> None:
    env = {"NCCL_ALGO": "Ring", "DEMO_ATTN_TRITON": "0", "DEMO_NORM_TRITON": "1"}
    result = check_env(project, env, "--profile", "bitwise")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_differences_one_line_each(project: Path) -> None:
    env = {"NCCL_ALGO": "Tree", "DEMO_TRACE": "1"}
    result = check_env(project, env, "--profile", "bitwise")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        "DEMO_ATTN_TRITON: expected '0', found unset\n"
        "DEMO_TRACE: expected unset, found '1'\n"
        "NCCL_ALGO: expected 'Ring', found 'Tree'\n"
    )


def test_unset_others(project: Path) -> None:
    env = {"NCCL_ALGO": "Ring", "DEMO_ATTN_TRITON": "0", "DEMO_NORM_TRITON": "1"}
    assert check_env(project, env, "-p", "bitwise").returncode == 0
    result = check_env(project, env, "-p", "bitwise", "--unset-others")
    assert (result.returncode, result.stdout) == (
        1,
        "DEMO_NORM_TRITON: expected unset, found '1'\n",
    )


def test_values_are_shown_escaped(project: Path) -> None:
    env = {"NCCL_ALGO": "Ring\nTree", "DEMO_ATTN_TRITON": "0"}
    result = check_env(project, env, "-p", "bitwise")
    assert result.stdout == "NCCL_ALGO: expected 'Ring', found 'Ring\\nTree'\n"


def test_check_env_writes_no_file(project: Path) -> None:
    result = check_env(project, {}, "-p", "bitwise", "--output", "env.sh")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "knobs export: error: --check-env writes nothing; leave out --output.\n"
    assert not (project / "env.sh").exists()


def test_repository_bitwise_after_sourcing_its_export(tmp_path: Path) -> None:
    registry = str(REPO / "registry.yaml")
    unsatisfied = check_env(tmp_path, {}, "-p", "bitwise", registry=registry)
    assert unsatisfied.returncode == 1
    assert len(unsatisfied.stdout.splitlines()) == len(RECIPE_ENV)
    assert check_env(tmp_path, RECIPE_ENV, "-p", "bitwise", registry=registry).returncode == 0
    wrong = {**RECIPE_ENV, "PRIMUS_HC_TRITON": "false"}
    result = check_env(tmp_path, wrong, "-p", "bitwise", registry=registry)
    assert (result.returncode, result.stdout) == (
        1,
        "PRIMUS_HC_TRITON: expected '0', found 'false'\n",
    )
