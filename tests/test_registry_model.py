"""A valid registry becomes frozen records, in file order, with positions."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

import pytest

from knobregistry.registry import (
    Pass,
    Policy,
    ProfileKind,
    RegistryError,
    RegistryProblem,
    SetAction,
    Sweep,
    Triage,
    Verdict,
    format_key_path,
    load_registry,
    loads_registry,
)

FULL = Path(__file__).parent / "data" / "registries" / "full.yaml"


def test_full_registry_builds_every_field() -> None:
    registry = load_registry(FULL)
    assert registry.path == FULL
    assert registry.root == FULL.parent
    assert registry.version == 1
    assert registry.scan.paths == ("src", "tools/launch.py")
    assert registry.scan.include == ("*.py",)
    assert registry.scan.exclude == ("_vendor/", "build/*")
    assert registry.scan.match == ("DEMO_*",)
    assert registry.scan.policy is Policy.ALL
    assert registry.scan_paths() == (FULL.parent / "src", FULL.parent / "tools/launch.py")

    norm = registry.knobs["DEMO_FUSED_NORM"]
    assert norm.gates is not None
    assert norm.gates.kernel == "fused layer norm (Triton)"
    assert norm.gates.pass_ is Pass.BOTH
    assert (norm.default, norm.default_on) == ("1", True)
    assert norm.triage is Triage.BREAKS_BITWISE
    assert norm.breaks is Pass.BACKWARD
    assert norm.owner == "kernels-team"
    assert norm.evidence is not None
    assert norm.evidence.date == date(2026, 1, 15)
    first, second = norm.evidence.records
    assert first.verdict is Verdict.BREAKS_BITWISE
    assert first.command == ("python", "train.py", "--steps", "5")
    assert first.compare == "regex:^step \\d+ loss"
    assert first.sweep is Sweep.ALONE
    assert dict(first.versions) == {"python": "3.11.7", "torch": "2.6.0", "triton": "3.2.0"}
    assert second.command == "python train.py --steps 5"
    assert second.combined_with == ("DEMO_CACHE",)
    assert second.sweep is Sweep.PAIRS

    cache = registry.knobs["DEMO_CACHE"]
    assert cache.triage is Triage.EXEMPT
    assert cache.expires == date(2026, 12, 31)
    assert cache.reason is not None and cache.gates is None

    block = registry.knobs["DEMO_BLOCK_SIZE"]
    assert (block.default, block.default_on, block.evidence) == (None, None, None)


def test_external_config_and_profiles() -> None:
    registry = load_registry(FULL)
    nccl = registry.external["NCCL_ALGO"]
    assert (nccl.library, nccl.default, nccl.set_by) == ("NCCL", "", "DEMO_DETERMINISTIC=1")

    mode = registry.config["deterministic_mode"]
    assert (mode.backend, mode.default, mode.has_default) == ("megatron", False, True)
    seed = registry.config["debug.seed"]
    assert (seed.default, seed.has_default) == (None, True)

    bitwise = registry.profiles["bitwise"]
    assert bitwise.kind is ProfileKind.BITWISE
    assert bitwise.extends == "base"
    assert dict(bitwise.env) == {"NCCL_ALGO": "Ring", "DEMO_FUSED_NORM": "0"}
    assert dict(bitwise.config) == {"deterministic_mode": True}
    off, default = bitwise.select
    assert off.set is SetAction.OFF  # a bare `off`, which YAML 1.1 reads as false
    assert (off.default_on, off.triage_not) == (True, (Triage.REPRODUCIBLE,))
    assert default.set is SetAction.DEFAULT
    assert default.match == ("DEMO_*",)
    assert default.triage == (Triage.UNTRIAGED, Triage.BREAKS_BITWISE)
    assert registry.profiles["plain"].kind is ProfileKind.CUSTOM


def test_mappings_keep_file_order() -> None:
    registry = load_registry(FULL)
    assert list(registry.knobs) == ["DEMO_FUSED_NORM", "DEMO_CACHE", "DEMO_BLOCK_SIZE"]
    assert list(registry.profiles) == ["base", "bitwise", "plain"]


def test_registry_is_frozen() -> None:
    registry = load_registry(FULL)
    with pytest.raises(dataclasses.FrozenInstanceError):
        registry.version = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        registry.knobs["NEW"] = registry.knobs["DEMO_CACHE"]  # type: ignore[index]


def test_positions_are_one_based_and_fall_back_to_the_parent() -> None:
    registry = load_registry(FULL)
    assert registry.position("knobs", "DEMO_CACHE") == (48, 3)
    assert registry.position("knobs", "DEMO_CACHE", "triage") == (51, 5)
    assert registry.position("knobs", "DEMO_CACHE", "owner") == (48, 3)
    assert registry.position("scan", "paths", 1) == (6, 16)
    assert registry.position() == (3, 1)


def test_minimal_registry_defaults(tmp_path: Path) -> None:
    registry = loads_registry("version: 1\n", tmp_path / "registry.yaml")
    assert registry.root == tmp_path
    assert registry.scan.paths == (".",)
    assert registry.scan.policy is Policy.ALL
    assert (dict(registry.knobs), dict(registry.profiles)) == ({}, {})


def test_format_key_path() -> None:
    assert format_key_path(()) == ""
    assert format_key_path(("knobs", "PRIMUS_HC_TRITON", "triage")) == (
        "knobs.PRIMUS_HC_TRITON.triage"
    )
    assert format_key_path(("scan", "paths", 0)) == "scan.paths[0]"
    assert format_key_path(("config", "debug.seed", "default")) == ('config["debug.seed"].default')


def test_problem_render_and_error_order() -> None:
    late = RegistryProblem(path="r.yaml", line=9, column=1, key_path=("knobs",), message="b")
    early = RegistryProblem(path="r.yaml", line=2, column=5, key_path=(), message="a")
    whole = RegistryProblem(
        path="r.yaml", line=0, column=0, key_path=(), message="cannot read the registry."
    )
    assert early.render() == "r.yaml:2:5: a"
    assert str(late) == "r.yaml:9:1: knobs: b"
    assert whole.render() == "r.yaml: cannot read the registry."
    error = RegistryError([late, early, late])
    assert error.problems == (early, late)
    assert str(error) == "r.yaml:2:5: a\nr.yaml:9:1: knobs: b"
