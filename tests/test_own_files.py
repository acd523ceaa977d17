"""The files knobs writes are never inputs: a registry, an export, the schemas, a baseline
and a journal are not read as configs or scripts, wherever they sit."""

from __future__ import annotations

import json
from pathlib import Path

from knobregistry.check.baseline import Baseline, render_baseline
from scanner import scan
from scanner.source.own_files import REGISTRY_KEYS, written_by_knobs
from tests.conftest import REPO, run_knobs, write_tree

# verl examples/grpo_trainer/run_qwen2-32b_sglang_fsdp_npu.sh:28 and
# grpo_30b_a3b_base_math_megatron_96_32_mis.sh:240: a default built from other
# variables (init quotes it, `${...}` and all, in an `undecided:` reason) and a last
# line that ends in a line continuation.
TRAINER = """
    #!/usr/bin/env bash
    project_name='DAPO'
    exp_name='DAPO-Qwen2.5-32B'
    RAY_DATA_HOME=${RAY_DATA_HOME:-"${HOME}/verl"}
    CKPTS_DIR=${CKPTS_DIR:-"${RAY_DATA_HOME}/ckpts/${project_name}/${exp_name}"}
    export CKPTS_DIR
    python3 -m verl.trainer.main_ppo \\
        trainer.total_epochs=15 \\
"""


def test_init_then_check_is_green_when_init_quotes_expansions(tmp_path: Path) -> None:
    write_tree(tmp_path, {"examples/run_dapo.sh": TRAINER})
    init = run_knobs("init", ".", cwd=tmp_path)
    assert init.returncode == 0, init.stdout + init.stderr
    registry = (tmp_path / "registry.yaml").read_text("utf-8")
    assert 'undecided: "its default (\\"${RAY_DATA_HOME}/ckpts/${project_name}' in registry
    check = run_knobs("check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "registry.yaml:" not in check.stdout.replace("against registry.yaml", "")
    assert "KNB007" not in check.stdout


def test_a_registry_anywhere_in_the_tree_is_not_read(tmp_path: Path) -> None:
    write_tree(tmp_path, {"examples/run_dapo.sh": TRAINER})
    assert run_knobs("init", ".", cwd=tmp_path).returncode == 0
    written = (tmp_path / "registry.yaml").read_bytes()
    (tmp_path / "vendor" / "other").mkdir(parents=True)
    (tmp_path / "vendor" / "other" / "knobs.yml").write_bytes(written)
    result = scan([tmp_path], root=tmp_path)
    paths = {s.path for k in result.knobs for s in k.sites}
    assert paths == {"examples/run_dapo.sh"}
    assert result.errors == ()


def test_what_knobs_writes_is_recognised() -> None:
    examples = REPO / "examples"
    assert written_by_knobs((examples / "registry.yaml").read_bytes())
    assert written_by_knobs((REPO / "registry.yaml").read_bytes())
    for fmt in ("sh", "config", "primus"):
        done = run_knobs("export", "--profile", "bitwise", "--format", fmt, cwd=examples)
        assert done.returncode == 0, done.stderr
        assert written_by_knobs(done.stdout.encode()), fmt
    assert written_by_knobs((REPO / "knobregistry/registry/schema.json").read_bytes())
    assert written_by_knobs((REPO / "knobregistry/triage/journal.schema.json").read_bytes())
    assert written_by_knobs(render_baseline(Baseline({}), "b.json").encode())
    header = {"journal": "knobs-triage", "format": 2, "origin": "x"}
    assert written_by_knobs(json.dumps(header).encode() + b"\n")


def test_ordinary_configs_are_still_read() -> None:
    for text in (
        'version: "3"\nservices:\n  app:\n    image: "${IMAGE:-app}"\n',
        "knobs:\n  lr: ${LR:-1e-4}\nversion: 2\nmodel: llama\n",
        "# Profile: not ours\nmodel: ${MODEL}\n",
        '{"name": "x", "about": "${X}"}\n',
    ):
        assert not written_by_knobs(text.encode()), text


def test_the_registry_keys_are_the_schemas() -> None:
    schema = json.loads((REPO / "knobregistry/registry/schema.json").read_text("utf-8"))
    assert set(schema["properties"]) == REGISTRY_KEYS
