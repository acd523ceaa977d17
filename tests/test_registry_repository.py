"""The repository's own registry.yaml and the shipped JSON Schema."""

from __future__ import annotations

from typing import Any

import yaml
from jsonschema import Draft202012Validator

from knobregistry.registry import (
    Pass,
    Policy,
    ProfileKind,
    SetAction,
    Triage,
    load_registry,
    load_schema,
    registry_problems,
)
from scanner import Role
from tests.conftest import REPO
from tests.seed_recipe import LAUNCHER, RECIPE_CONFIG, V4_FUSIONS

REGISTRY = REPO / "registry.yaml"


def test_repository_registry_is_valid() -> None:
    assert registry_problems(REGISTRY) == ()


def test_repository_registry_against_the_schema_alone() -> None:
    data = yaml.safe_load(REGISTRY.read_text(encoding="utf-8"))
    errors = list(Draft202012Validator(load_schema()).iter_errors(data))
    assert errors == []


def test_first_line_names_the_schema() -> None:
    first = REGISTRY.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=knobregistry/registry/schema.json"
    assert (REPO / "knobregistry" / "registry" / "schema.json").is_file()


def test_the_fifteen_fusions_as_the_seed_reports_them() -> None:
    registry = load_registry(REGISTRY)
    assert list(registry.knobs) == [*V4_FUSIONS, "PRIMUS_TURBO_MOE_DISPATCH_COMBINE_BACKEND"]
    selector = registry.knobs["PRIMUS_TURBO_MOE_DISPATCH_COMBINE_BACKEND"]
    assert (selector.default, selector.on_value, selector.triage) == (
        "TURBO",
        "TURBO",
        Triage.EXEMPT,
    )
    for name in V4_FUSIONS:
        knob = registry.knobs[name]
        assert (knob.default, knob.default_on) == ("1", True), name
        assert knob.gates is not None and knob.gates.kernel, name
        assert knob.cost, name
        evidence = knob.evidence
        assert evidence is not None, name
        assert evidence.hardware == "MI355X"
        assert evidence.setup == "DeepSeek-V4, 8 layers, PP2xEP4, mock data"
        assert evidence.compare == "lm-loss strings of two runs"
        if name == "PRIMUS_HC_TRITON":
            assert (knob.triage, knob.breaks) == (Triage.BREAKS_BITWISE, Pass.BACKWARD)
        else:
            assert knob.triage is Triage.REPRODUCIBLE, name
            assert evidence.notes is not None and "combinations" in evidence.notes, name
            assert "not swept" in evidence.notes, name


def test_scope_for_a_primus_checkout() -> None:
    scan = load_registry(REGISTRY).scan
    assert scan.paths == (
        "primus/backends/megatron/core/transformer",
        "runner/helpers/hooks/05_deterministic.sh",
        "primus/backends/megatron/patches/args/rocm_arg_validation.py",
    )
    assert scan.exclude == ("_triton_v1/", "_triton_v2/", "*gluon*/", "*flydsl*/")
    assert scan.match == (
        "PRIMUS_*",
        "NCCL_ALGO",
        "NVTE_ALLOW_NONDETERMINISTIC_ALGO",
        "ROCBLAS_DEFAULT_ATOMICS_MODE",
        "TORCH_COMPILE_DISABLE",
    )
    assert scan.policy is Policy.DEFAULT_ON


def test_external_and_config() -> None:
    registry = load_registry(REGISTRY)
    for name in [*LAUNCHER, "CUBLAS_WORKSPACE_CONFIG"]:
        assert registry.external[name].description, name
    for name in ["NCCL_ALGO", "ROCBLAS_DEFAULT_ATOMICS_MODE", "TORCH_COMPILE_DISABLE"]:
        assert registry.external[name].cost, name
    for key in [*RECIPE_CONFIG, "seed", "data_parallel_random_init"]:
        assert registry.config[key].backend in ("megatron", "primus"), key
    assert registry.config["debug.seed"].backend == "torchtitan"


def test_profiles_first_draft() -> None:
    profiles = load_registry(REGISTRY).profiles
    assert list(profiles) == ["reproducible", "bitwise", "fast"]
    bitwise = profiles["bitwise"]
    assert bitwise.kind is ProfileKind.BITWISE
    assert bitwise.extends == "reproducible"
    assert dict(bitwise.env) == {**LAUNCHER, **dict.fromkeys(V4_FUSIONS, "0")}
    assert dict(bitwise.config) == RECIPE_CONFIG
    kernels, breaking = bitwise.select
    assert (kernels.role, kernels.default_on, kernels.triage_not, kernels.set) == (
        (Role.KERNEL,),
        True,
        (Triage.REPRODUCIBLE, Triage.EXEMPT),
        SetAction.OFF,
    )
    assert (breaking.role, breaking.triage, breaking.set) == (
        (),
        (Triage.BREAKS_BITWISE,),
        SetAction.OFF,
    )
    assert profiles["reproducible"].kind is ProfileKind.REPRODUCIBLE
    assert profiles["fast"].kind is ProfileKind.FAST


def test_schema_is_valid_draft_2020_12() -> None:
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str):
        target: dict[str, Any] = schema["$defs"][ref.rsplit("/", 1)[1]]
        return target
    return node


def _properties(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every (name, subschema) under a `properties` keyword, anywhere in the schema."""
    found: list[tuple[str, dict[str, Any]]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                found.append((name, sub))
            for key, value in node.items():
                if key != "if":  # a condition, not a declaration
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


def test_every_property_has_a_description() -> None:
    schema = load_schema()
    properties = _properties(schema)
    assert len(properties) > 60
    missing = [
        name
        for name, sub in properties
        if "description" not in sub and "description" not in _resolve(schema, sub)
    ]
    assert missing == []
