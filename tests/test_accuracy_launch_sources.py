"""The launch-source section of the accuracy benchmark: its format on the fixture tree
tests/data/bench/torchtitan, and its arithmetic when the scan misses, adds or misreads."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from types import ModuleType

import pytest

from scanner import scan
from tests.conftest import REPO
from tests.test_accuracy_bench import run_benchmark, section

BENCH = REPO / "tests" / "data" / "bench"
TREE = BENCH / "torchtitan"
HEADER = [
    "launch sources: tests/data/bench/launch_sources.yaml and the ENV_VARS: blocks of each tree",
    "  package      layer           truth  found  recall precision  values",
]


@pytest.fixture
def module(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/accuracy_launch_sources.py, imported as the benchmark imports it."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    return importlib.import_module("accuracy_launch_sources")


def test_the_section_reports_each_layer_of_the_tree_given() -> None:
    lines = section(run_benchmark("--torchtitan", "tests/data/bench/torchtitan"), "launch sources")
    assert lines == [
        *HEADER,
        "  torchtitan   env-block           3      3  100.0%    100.0%  100.0%",
        "  torchtitan   shebang-shell       6      6  100.0%    100.0%  100.0%",
        "  torchtitan   sbatch              1      1  100.0%    100.0%  100.0%",
        "  torchtitan   dockerfile-env      2      2  100.0%    100.0%  100.0%",
        "  torchtitan   dockerfile-arg      2      2  100.0%    100.0%  100.0%",
        "  torchtitan   ci-env              2      2  100.0%    100.0%  100.0%",
        "  torchtitan   ci-script           2      2  100.0%    100.0%  100.0%",
        "  torchtitan   github-env          1      1  100.0%    100.0%  100.0%",
    ]


def test_the_section_skips_a_tree_not_given() -> None:
    lines = section(run_benchmark(), "launch sources")
    assert lines == [*HEADER, "  torchtitan: skipped (pass --torchtitan PATH)"]


def test_a_miss_an_extra_and_a_wrong_value_are_counted_and_named(
    module: ModuleType, chdir_repo: None
) -> None:
    result = scan([TREE], root=TREE, jobs=1)
    writes = list(result.writes)
    dropped = next(w for w in writes if w.name == "LOGLEVEL")
    misread = next(w for w in writes if w.name == "UV_LINK_MODE")
    writes.remove(dropped)
    writes[writes.index(misread)] = dataclasses.replace(misread, value="symlink")
    writes.append(dataclasses.replace(dropped, name="INVENTED", line=7))
    changed = dataclasses.replace(result, writes=tuple(writes))
    lines = module.report(
        Path("tests/data/bench/launch_sources.yaml"), {"torchtitan": changed}, {"torchtitan": TREE}
    )
    assert lines[3] == "  torchtitan   shebang-shell       6      6   83.3%     83.3%  100.0%"
    assert lines[5] == "  torchtitan   dockerfile-env      2      2  100.0%    100.0%   50.0%"
    assert lines[10:] == [
        "  missed: torchtitan multinode_trainer.slurm:6 write LOGLEVEL (shebang-shell)",
        "  extra: torchtitan multinode_trainer.slurm:7 write INVENTED (shebang-shell)",
        "  wrong value: torchtitan docker/Dockerfile:5 write UV_LINK_MODE: expected 'copy', "
        "found 'symlink'",
    ]


def test_a_malformed_truth_is_refused_with_each_problem(module: ModuleType, tmp_path: Path) -> None:
    bad = tmp_path / "truth.yaml"
    bad.write_text(
        "files:\n  - package: p\n    path: a.sh\n    layers:\n      shell: {}\n"
        "      ci-env:\n        write:\n          - [x, A, '1']\n  - nothing\n",
        encoding="utf-8",
    )
    with pytest.raises(module.BenchError) as raised:
        module.load(bad)
    assert str(raised.value).split("\n") == [
        f"{bad}: files[0]: unknown layer 'shell' (one of env-block, shebang-shell, sbatch, "
        "dockerfile-env, dockerfile-arg, ci-env, ci-script, ci-value, github-env)",
        f"{bad}: files[0]: ci-env.write: expected [line, name, value]",
        f"{bad}: files[1]: needs package, path and layers",
    ]


def test_the_env_block_truth_is_every_entry_as_written(module: ModuleType) -> None:
    truth = module.env_block_truth("torchtitan", TREE)
    assert [(e.path, e.line, e.name, e.value) for e in truth.entries] == [
        ("tests/configs/model_config.yaml", 2, "CUDA_DEVICE_MAX_CONNECTIONS", "1"),
        ("tests/configs/model_config.yaml", 3, "NVTE_ALLOW_NONDETERMINISTIC_ALGO", "0"),
        ("tests/configs/model_config.yaml", 4, "NCCL_ALGO", "Ring"),
    ]


@pytest.fixture
def chdir_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
