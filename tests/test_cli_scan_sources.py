"""`knobs scan` over the launch sources beyond scripts and configs: a Dockerfile, a CI
workflow in its hidden folder, a Slurm batch file and an ``ENV_VARS:`` block, with the
key of that block set in ``[tool.knobs]``. The real command, in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_knobs, write_tree

TREE = {
    "Dockerfile": "FROM x\nARG USE_FUSED=1\nENV NCCL_ALGO=Ring\n",
    ".github/workflows/ci.yml": (
        'jobs:\n  t:\n    steps:\n      - run: python train.py --fused "${USE_FUSED:-1}"\n'
    ),
    "train.slurm": "#!/bin/bash\n#SBATCH --export=ALL,NCCL_DEBUG=WARN\necho ${STEPS:-10}\n",
    "tests/model_config.yaml": "ENV_VARS:\n  NVTE_ALLOW_NONDETERMINISTIC_ALGO: 0\n",
    ".git/HEAD": "ref: refs/heads/main\n",
}

TABLE = """\
knob       default  on by default?  polarity  role     off value  read in    sites
────────────────────────────────────────────────────────────────────────────────────────────────────────────
STEPS      '10'     value           -         value    -          sh         train.slurm:3
USE_FUSED  '1'      yes             enable    unknown  '0'        docker+ci  .github/workflows/ci.yml:4 (+1)

2 knobs (1 on by default), 0 dynamic reads, 0 errors; 4 files scanned.
"""  # noqa: E501


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path, TREE)


def test_table_golden(tree: Path) -> None:
    done = run_knobs("scan", cwd=tree)
    assert (done.returncode, done.stdout, done.stderr) == (0, TABLE, "")


def test_json_writes_golden(tree: Path) -> None:
    done = run_knobs("scan", "--format", "json", cwd=tree)
    assert done.returncode == 0, done.stderr
    writes = [
        (w["path"], w["line"], w["column"], w["name"], w["value"], w["kind"], w["language"])
        for w in json.loads(done.stdout)["writes"]
    ]
    assert writes == [
        ("Dockerfile", 3, 5, "NCCL_ALGO", "Ring", "export", "dockerfile"),
        ("tests/model_config.yaml", 2, 3, "NVTE_ALLOW_NONDETERMINISTIC_ALGO", "0", "block", "yaml"),
        ("train.slurm", 2, 22, "NCCL_DEBUG", "WARN", "export", "shell"),
    ]


def test_the_env_block_key_comes_from_tool_knobs(tree: Path) -> None:
    write_tree(
        tree,
        {
            "pyproject.toml": '[tool.knobs]\nenv_blocks = ["env"]\n',
            "deploy.yaml": "env:\n  HF_HOME: /data\n",
        },
    )
    done = run_knobs("scan", "--format", "json", cwd=tree)
    assert done.returncode == 0, done.stderr
    blocks = [(w["path"], w["name"]) for w in json.loads(done.stdout)["writes"]]
    assert ("deploy.yaml", "HF_HOME") in blocks
    assert ("tests/model_config.yaml", "NVTE_ALLOW_NONDETERMINISTIC_ALGO") not in blocks


def test_a_malformed_env_blocks_setting_is_a_usage_error(tree: Path) -> None:
    write_tree(tree, {"pyproject.toml": '[tool.knobs]\nenv_blocks = "ENV_VARS"\n'})
    done = run_knobs("scan", cwd=tree)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"knobs scan: error: {tree / 'pyproject.toml'}: [tool.knobs] env_blocks must be a "
        'list of strings, such as ["ENV_VARS"].\n',
    )
