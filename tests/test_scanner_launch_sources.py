"""The other places launchers set a run's environment: YAML ``ENV_VARS:`` blocks, OmegaConf
resolvers, shell files known by their shebang, ``#SBATCH --export=``, Dockerfiles and CI
workflows. One case per form, with ``▸`` marking where each read or write starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, ReadKind, ScanResult, Settings, WriteKind, scan
from tests.conftest import write_tree
from tests.test_scanner_shell import marked

Found = tuple[str, str, str | None, str]  # (name, kind, value or default, language)


def found_at(result: ScanResult, rel: str) -> list[tuple[tuple[int, int], Found]]:
    """Every read and write of ``rel``, in the order of the file."""
    reads = [
        ((s.line, s.column), (s.name, s.kind.value, s.default, s.language))
        for k in result.knobs
        for s in k.sites
        if s.path == rel
    ]
    writes = [
        ((w.line, w.column), (w.name or "?", w.kind.value, w.value, w.language))
        for w in result.writes
        if w.path == rel
    ]
    return sorted(reads + writes)


def scanned(tmp_path: Path, rel: str, text: str) -> tuple[ScanResult, list[tuple[int, int]]]:
    source, positions = marked(text)
    write_tree(tmp_path, {rel: source})
    return scan([tmp_path], root=tmp_path, jobs=1), positions


CASES: list[tuple[str, str, str, list[Found]]] = [
    (
        "env-vars-block",
        "tests/model_config.yaml",
        'ENV_VARS:\n  ▸NCCL_ALGO: Ring\n  ▸NVTE_X: 0\n  ▸CONF: "a:True"\nMODEL_ARGS:\n  x: 1\n',
        [
            ("NCCL_ALGO", "block", "Ring", "yaml"),
            ("NVTE_X", "block", "0", "yaml"),
            ("CONF", "block", "a:True", "yaml"),
        ],
    ),
    (
        "env-vars-nested-null-and-interpolated",
        "c.yaml",
        "spec:\n  ENV_VARS:\n    ▸EMPTY:\n    ▸ROOT: ▸${DATA_ROOT}/x\n    ▸LIST: [1, 2]\n",
        [
            ("EMPTY", "block", None, "yaml"),
            ("ROOT", "block", None, "yaml"),
            ("DATA_ROOT", "required", None, "yaml"),
            ("LIST", "block", None, "yaml"),
        ],
    ),
    (
        "env-vars-through-an-alias-once",
        "c.yaml",
        "base: &b\n  ENV_VARS:\n    ▸A: 1\nrun:\n  <<: *b\n",
        [("A", "block", "1", "yaml")],
    ),
    (
        "omegaconf-resolvers",
        "conf.yaml",
        "data:\n  root: ▸${oc.env:DATA_ROOT}\n  workers: ▸${oc.env:WORKERS,4}\n"
        "  name: ▸${oc.env:RUN_NAME,'my run'}\n  old: x-▸${env:OLD_STYLE,7}\n",
        [
            ("DATA_ROOT", "required", None, "yaml"),
            ("WORKERS", "interpolation", "4", "yaml"),
            ("RUN_NAME", "interpolation", "my run", "yaml"),
            ("OLD_STYLE", "interpolation", "7", "yaml"),
        ],
    ),
    # alibaba/ROLL 8eb27cc2 examples/qwen2.5-7B-rlvr_megatron/rlvr_config.yaml:80, :181
    # (${reward_pretrain}: a key at the top of the same config) and :6 (hydra:); a file with no
    # such key keeps ${NAME} and ${NAME:default} as reads (Primus's loader).
    (
        "omegaconf-node-references",
        "conf.yaml",
        "pretrain: Qwen/Qwen2.5-7B\nreward_pretrain: Qwen/Qwen2.5-7B\nexp_name: rlvr\n"
        "critic:\n  model_name_or_path: ${reward_pretrain}\n  out: /data/${exp_name}/▸${RUN}\n"
        "  ws: ▸${PRIMUS_WORKSPACE:./output}\n",
        [
            ("RUN", "required", None, "yaml"),
            ("PRIMUS_WORKSPACE", "interpolation", "./output", "yaml"),
        ],
    ),
    # examples/agentic_demo/agent_val_rock_swe.yaml:1-6, :14: a Hydra config (defaults:, hydra:)
    # composes keys from other files (${max_actions_per_traj}) and calls resolvers (${now:...}).
    (
        "hydra-config",
        "agent.yaml",
        "defaults:\n  - ../config/traj_envs@_here_\nhydra:\n  run:\n    dir: .\n"
        "model_name: ${exp_name}-${now:%Y%m%d_%H%M%S}\nsteps: ${max_actions_per_traj}\n"
        "key: ▸${oc.env:WANDB_API_KEY,none}\n",
        [("WANDB_API_KEY", "interpolation", "none", "yaml")],
    ),
    # NVIDIA-NeMo/RL examples/configs/distillation_math.yaml:60: a resolver the tree registers
    # (nemo_rl/utils/config.py:200, "mul") called on relative node paths: OmegaConf's document,
    # where a plain ${NAME} is a node too.
    (
        "omegaconf-custom-resolver",
        "distillation.yaml",
        "policy:\n  dynamic_batching:\n"
        "    train_mb_tokens: ${mul:${..max_total_sequence_length}, ${..train_micro_batch_size}}\n"
        "  dir: ${LOG_DIR}\n  key: ▸${oc.env:HF_HOME,/tmp}\n",
        [("HF_HOME", "interpolation", "/tmp", "yaml")],
    ),
    (
        "slurm-file-by-its-shebang",
        "multinode_trainer.slurm",
        "#!/bin/bash\n#SBATCH --export=▸A=1,▸B,ALL\n#SBATCH --nodes=2\n\nexport ▸NCCL_DEBUG=WARN\n"
        "srun python train.py --steps ▸${STEPS:-10}\n#SBATCH --export=C=3\n",
        [
            ("A", "export", "1", "shell"),
            ("B", "export", None, "shell"),
            ("NCCL_DEBUG", "export", "WARN", "shell"),
            ("STEPS", "expansion", "10", "shell"),
        ],
    ),
    (
        "sbatch-file-through-env",
        "jobs/train.sbatch",
        '#!/usr/bin/env zsh\n  #SBATCH --export ▸LOG="info"\nexport ▸X=1\n',
        [("LOG", "export", "info", "shell"), ("X", "export", "1", "shell")],
    ),
    (
        "extensionless-dash-script",
        "bin/launch",
        "#!/bin/dash\nexport ▸K=▸${K:-0}\n",
        [("K", "export", None, "shell"), ("K", "expansion", "0", "shell")],
    ),
    (
        "dockerfile-env-and-arg",
        "Dockerfile",
        "# syntax=docker/dockerfile:1\nARG ▸BASE=ubuntu:22.04\nFROM $BASE AS build\n"
        'ARG ▸TARGETARCH\nENV ▸A=1 ▸B="x y" \\\n    ▸C=$HOME/c\nenv ▸OLD legacy form\n',
        [
            ("BASE", "build-arg", "ubuntu:22.04", "dockerfile"),
            ("TARGETARCH", "build-arg", None, "dockerfile"),
            ("A", "export", "1", "dockerfile"),
            ("B", "export", "x y", "dockerfile"),
            ("C", "export", None, "dockerfile"),
            ("OLD", "export", "legacy form", "dockerfile"),
        ],
    ),
    (
        "dockerfile-continued-with-a-comment-inside",
        "docker/train.Dockerfile",
        "FROM x\nENV ▸P=1 \\\n# a comment\n    ▸Q=2\nARG ▸R=0 ▸S\n",
        [
            ("P", "export", "1", "dockerfile"),
            ("Q", "export", "2", "dockerfile"),
            ("R", "build-arg", "0", "dockerfile"),
            ("S", "build-arg", None, "dockerfile"),
        ],
    ),
    (
        "dockerfile-heredoc-is-not-instructions",
        "Dockerfile",
        "FROM x\nRUN <<EOF\nENV NOT_AN_INSTRUCTION=1\nEOF\nENV ▸AFTER=1\n",
        [("AFTER", "export", "1", "dockerfile")],
    ),
    (
        "dockerfile-by-suffix-name",
        "docker/Dockerfile.ci.dev",
        "FROM x\nENV ▸UV_LINK_MODE=copy\n",
        [("UV_LINK_MODE", "export", "copy", "dockerfile")],
    ),
    (
        "github-workflow",
        ".github/workflows/ci.yml",
        "on: push\nenv:\n  ▸TOP: 1\njobs:\n  test:\n    env:\n      ▸JOB: ${{ inputs.x }}\n"
        "    steps:\n      - env:\n          ▸STEP: a\n        run: |\n"
        '          if [[ "▸${FUSED:-1}" == 1 ]]; then echo ${{ secrets.T }}; fi\n'
        '          ▸echo "OUT=2" >> "▸$GITHUB_ENV"\n'
        "      - run: make ▸$TARGET\n"
        "      - shell: python\n        run: import os; os.environ['NOT_READ']\n",
        [
            ("TOP", "block", "1", "ci"),
            ("JOB", "block", None, "ci"),
            ("STEP", "block", "a", "ci"),
            ("FUSED", "expansion", "1", "ci"),
            ("OUT", "printed", "2", "ci"),
            ("GITHUB_ENV", "expansion", None, "ci"),
            ("TARGET", "expansion", None, "ci"),
        ],
    ),
    (
        "github-reusable-workflow-script",
        ".github/workflows/unit.yaml",
        "jobs:\n  t:\n    uses: pytorch/test-infra/.github/workflows/linux_job_v2.yml@main\n"
        '    with:\n      script: |\n        E=$(conda env list)\n        conda activate "$E"\n'
        "        ▸USE_CPP=0 pip install torchao\n        export ▸COV=/tmp/c\n",
        [("USE_CPP", "prefix", "0", "ci"), ("COV", "export", "/tmp/c", "ci")],
    ),
    (
        "github-composite-action",
        ".github/actions/setup/action.yml",
        "runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: echo ▸$PY_VER\n",
        [("PY_VER", "expansion", None, "ci")],
    ),
    (
        "gitlab-ci",
        ".gitlab-ci.yml",
        "variables:\n  ▸GIT_DEPTH: 1\n  ▸DESCRIBED:\n    value: x\n    description: d\n"
        "  ▸LITERAL: $$NOT_READ\n"
        "test:\n  image: ▸${REGISTRY}/img:▸$CI_PIPELINE_ID\n"
        "  rules:\n    - if: $IN_A_RULE == 'yes'\n"
        "  variables:\n    ▸FROM_CI: ▸$CI_PROJECT_DIR/x\n  before_script:\n"
        "    - export ▸A=1\n  script:\n    - run ▸${MODE:-fast}\n"
        "    - |\n      echo $A ▸$CI_JOB_ID\n",
        [
            ("GIT_DEPTH", "block", "1", "ci"),
            ("DESCRIBED", "block", "x", "ci"),
            ("LITERAL", "block", None, "ci"),
            ("REGISTRY", "expansion", None, "ci"),
            ("CI_PIPELINE_ID", "expansion", None, "ci"),
            ("FROM_CI", "block", None, "ci"),
            ("CI_PROJECT_DIR", "expansion", None, "ci"),
            ("A", "export", "1", "ci"),
            ("MODE", "expansion", "fast", "ci"),
            ("CI_JOB_ID", "expansion", None, "ci"),
        ],
    ),
    (
        "gitlab-folded-and-plain-multiline-scripts",
        ".gitlab/stages/06.triage.yml",
        'triage:\n  script:\n    - >-\n      cerno status\n      --config "▸${CERNO_CONFIG}"\n'
        "      --out x\n    - notify --token\n      ▸$TOKEN --channel ▸${CHANNEL:-ops}\n",
        [
            ("CERNO_CONFIG", "expansion", None, "ci"),
            ("TOKEN", "expansion", None, "ci"),
            ("CHANNEL", "expansion", "ops", "ci"),
        ],
    ),
    (
        "github-env-through-tee",
        ".github/workflows/install.yml",
        "jobs:\n  a:\n    steps:\n      - run: |\n"
        '          ▸echo "UV_LINK_MODE=copy" | tee -a "▸$GITHUB_ENV"\n'
        '          ▸echo "CUDA=/usr/local/cuda" | tee --append ▸$GITHUB_ENV\n',
        [
            ("UV_LINK_MODE", "printed", "copy", "ci"),
            ("GITHUB_ENV", "expansion", None, "ci"),
            ("CUDA", "printed", "/usr/local/cuda", "ci"),
            ("GITHUB_ENV", "expansion", None, "ci"),
        ],
    ),
    (
        "gitlab-include-folder",
        ".gitlab/stages/01.test.yml",
        "unit:\n  script:\n    - pytest -k ▸${FILTER}\n",
        [("FILTER", "expansion", None, "ci")],
    ),
]


@pytest.mark.parametrize(
    ("rel", "text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_form(tmp_path: Path, rel: str, text: str, expected: list[Found]) -> None:
    result, positions = scanned(tmp_path, rel, text)
    assert result.errors == ()
    assert found_at(result, rel) == sorted(zip(positions, expected, strict=True))


def test_the_github_env_append_is_at_the_echo_and_the_read_of_github_env_a_fact(
    tmp_path: Path,
) -> None:
    text = 'jobs:\n  a:\n    steps:\n      - run: echo "X=1" >> $GITHUB_ENV\n'
    result, _ = scanned(tmp_path, ".github/workflows/a.yml", text)
    assert [(w.name, w.line, w.column, w.value) for w in result.writes] == [("X", 4, 14, "1")]
    fact = result.knob("GITHUB_ENV")
    assert fact is not None and fact.kind is GateKind.LAUNCH


def test_a_dockerfile_arg_is_judged_by_its_default_and_name(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Dockerfile": "ARG USE_FUSED=1\nARG BATCH_SIZE=8\nARG TARGETOS\n"})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    kinds = {k.name: (k.kind, k.default_on, k.off_value) for k in result.knobs}
    assert kinds == {
        "USE_FUSED": (GateKind.BOOLEAN, True, "0"),
        "BATCH_SIZE": (GateKind.VALUE, None, None),
        "TARGETOS": (GateKind.LAUNCH, None, None),
    }
    assert {s.kind for k in result.knobs for s in k.sites} == {ReadKind.BUILD_ARG}


def test_a_run_block_the_grammar_cannot_parse_is_the_files_error(tmp_path: Path) -> None:
    text = "jobs:\n  a:\n    steps:\n      - run: |\n          if then fi (\n"
    result, _ = scanned(tmp_path, ".github/workflows/a.yml", text)
    assert [(e.path, e.message) for e in result.errors] == [
        (
            ".github/workflows/a.yml",
            "The bash grammar cannot parse the script of jobs.a.steps[0].run (from line 5); "
            "reads in it may be missing or misjudged.",
        )
    ]


def test_a_fold_that_keeps_a_line_break_puts_its_reads_at_its_start(tmp_path: Path) -> None:
    text = "jobs:\n  a:\n    steps:\n      - run: >\n          echo $ONE\n\n          echo $TWO\n"
    result, _ = scanned(tmp_path, ".github/workflows/a.yml", text)
    sites = sorted((s.name, s.line, s.column) for k in result.knobs for s in k.sites)
    assert sites == [("ONE", 4, 14), ("TWO", 4, 14)]


def test_gitlab_rule_variables_are_writes_under_the_rules_condition(tmp_path: Path) -> None:
    text = (
        ".fast: &fast\n  UNIT_TEST: 'yes'\nworkflow:\n  rules:\n"
        "    - if: $CI_PIPELINE_SOURCE == 'push'\n      variables:\n        PUBLISH: 'no'\n"
        "    - if: $CI_MERGE_REQUEST_EVENT_TYPE == 'merge_train'\n      variables: *fast\n"
        "    - when: never\n"
    )
    result, _ = scanned(tmp_path, ".gitlab-ci.yml", text)
    writes = [(w.name, w.line, w.column, w.value, w.condition) for w in result.writes]
    assert writes == [
        ("UNIT_TEST", 2, 3, "yes", "$CI_MERGE_REQUEST_EVENT_TYPE == 'merge_train'"),
        ("PUBLISH", 7, 9, "no", "$CI_PIPELINE_SOURCE == 'push'"),
    ]


def test_hidden_folders_other_than_ci_ones_stay_out(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".github/scripts/check.sh": "echo $IN_GITHUB\n",
            ".ci/docker/Dockerfile": "FROM x\nENV OUT_CI=1\n",
            ".venv/run.sh": "echo $OUT_VENV\n",
            "README.md": "#!/bin/bash\necho $NOT_A_SCRIPT\n",
            "notes.txt": "#!/bin/bash\necho $NOT_EITHER\n",
        },
    )
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [k.name for k in result.knobs] == ["IN_GITHUB"]
    assert result.writes == ()
    assert result.files_scanned == 1


def test_a_workflow_outside_its_folder_is_a_plain_yaml_config(tmp_path: Path) -> None:
    write_tree(tmp_path, {"ci/build.yml": "env:\n  A: 1\nsteps:\n  - run: echo $B\n"})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert (result.knobs, result.writes) == ((), ())


def test_the_env_block_key_is_a_setting_and_part_of_the_cache_key(tmp_path: Path) -> None:
    write_tree(tmp_path / "src", {"c.yaml": "ENV_VARS:\n  A: 1\nenv_vars:\n  B: 2\n"})
    cache = tmp_path / "cache"
    plain = scan([tmp_path / "src"], root=tmp_path / "src", cache_dir=cache, jobs=1)
    lower = scan(
        [tmp_path / "src"],
        Settings(env_blocks=("env_vars",)),
        root=tmp_path / "src",
        cache_dir=cache,
        jobs=1,
    )
    none = scan(
        [tmp_path / "src"], Settings(env_blocks=()), root=tmp_path / "src", cache_dir=cache, jobs=1
    )
    assert [(w.name, w.value) for w in plain.writes] == [("A", "1")]
    assert [(w.name, w.value) for w in lower.writes] == [("B", "2")]
    assert none.writes == ()
    assert {w.kind for w in (*plain.writes, *lower.writes)} == {WriteKind.BLOCK}


def test_match_keeps_only_the_matching_writes(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "c.yaml": "ENV_VARS:\n  NCCL_A: 1\n  B: 2\n",
            "Dockerfile": "FROM x\nENV NCCL_B=1 C=2\n",
            "j.slurm": "#!/bin/sh\n#SBATCH --export=NCCL_C=1,D=2\n",
        },
    )
    result = scan([tmp_path], Settings(match=("NCCL_*",)), root=tmp_path, jobs=1)
    assert sorted(w.name or "?" for w in result.writes) == ["NCCL_A", "NCCL_B", "NCCL_C"]
