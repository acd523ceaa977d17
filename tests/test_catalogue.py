"""The shipped catalogue of the stack's determinism settings: every file valid against its
schema, every entry with a source, and `knobs catalogue` printing them (golden output)."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest
import yaml

from knobregistry.catalogue import (
    Entry,
    Kind,
    Platform,
    Reviewed,
    applicable,
    entries,
    for_name,
    libraries,
    library_records,
)
from knobregistry.catalogue.load import SAFE_LOADER, problems
from scanner.determinism import SETTINGS
from tests.conftest import REPO, run_knobs

DATA = resources.files("knobregistry.catalogue").joinpath("data")
FILES = sorted(f.name for f in DATA.iterdir() if f.name.endswith(".yaml"))
GOLDEN = REPO / "tests" / "data" / "catalogue"
# A source is a URL, or a repository's file: owner/name[@version] path.
SOURCE = re.compile(r"https://\S+\Z|[\w.-]+/[\w.-]+(@[\w.]+)? [\w./-]+")


@pytest.mark.parametrize("name", FILES)
def test_each_file_is_valid_against_the_schema(name: str) -> None:
    document = yaml.safe_load(DATA.joinpath(name).read_text("utf-8"))
    assert problems(document) == []


@pytest.mark.parametrize("name", FILES)
def test_each_file_loads_the_same_with_the_loader_the_catalogue_uses(name: str) -> None:
    # entries() loads with libyaml's safe loader where there is one; it must read each
    # shipped file exactly as PyYAML's own safe loader does (values and their types).
    text = DATA.joinpath(name).read_text("utf-8")
    loaded = yaml.load(text, Loader=SAFE_LOADER)
    expected = yaml.safe_load(text)
    assert repr(loaded) == repr(expected)
    assert loaded["settings"]


def test_the_schema_refuses_an_entry_without_a_source() -> None:
    document = {
        "library": "X",
        "packages": [],
        "settings": [
            {
                "name": "X_ALGO",
                "kind": "variable",
                "platform": "any",
                "meaning": "m",
                "deterministic": "1",
                "cost": "c",
                "versions": "v",
            }
        ],
    }
    assert problems(document) == ["settings/0: 'source' is a required property"]


def test_a_variable_takes_a_string_value() -> None:
    setting = {
        "name": "X_ALGO",
        "kind": "variable",
        "platform": "any",
        "meaning": "m",
        "deterministic": True,
        "cost": "c",
        "versions": "v",
        "source": "https://example.org/x",
    }
    document = {"library": "X", "packages": [], "settings": [setting]}
    assert problems(document) == ["settings/0/deterministic: True is not of type 'string'"]


@pytest.mark.parametrize("entry", entries(), ids=lambda e: f"{e.library}:{e.name}")
def test_every_entry_cites_a_source(entry: Entry) -> None:
    assert SOURCE.match(entry.source), entry.source


REVIEWED = [r for library in library_records() for r in library.reviewed]


@pytest.mark.parametrize("group", REVIEWED, ids=lambda r: f"{r.library}:{r.names[0]}")
def test_every_reviewed_group_cites_a_source(group: Reviewed) -> None:
    assert SOURCE.match(group.source), group.source


def _setting(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "name": "X_TILE",
        "kind": "variable",
        "platform": "any",
        "meaning": "m",
        "cost": "c",
        "versions": "v",
        "source": "https://example.org/x",
    }
    return {**base, **fields}


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        (_setting(must_stay_unset=True), []),
        (_setting(), ["settings/0: 'deterministic' is a required property"]),
        (
            _setting(must_stay_unset=True, deterministic="1"),
            ["settings/0: False schema does not allow '1'"],
        ),
        (
            _setting(must_stay_unset=True, kind="call", name="x.y"),
            ["settings/0/kind: 'variable' was expected"],
        ),
        (_setting(must_stay_unset=False), ["settings/0/must_stay_unset: True was expected"]),
    ],
    ids=["unset", "neither", "both", "a-call", "false"],
)
def test_the_schema_takes_a_value_or_must_stay_unset(
    setting: dict[str, object], expected: list[str]
) -> None:
    document = {"library": "X", "packages": [], "settings": [setting]}
    assert problems(document) == expected


WORD = "^[^\\s'\"]*$"  # the schema's pattern of a flag's value: no space, no quote
FLAG = {"flag": "--x_level", "deterministic": "0", "meaning": "m", "source": "x/y@1234 f.cc"}


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        (_setting(flags=[FLAG]), []),
        (
            _setting(flags=[FLAG], deterministic="--x_level=0"),
            ["settings/0: False schema does not allow '--x_level=0'"],
        ),
        (
            _setting(flags=[{**FLAG, "deterministic": "a b"}]),
            [f"settings/0/flags/0/deterministic: 'a b' does not match {WORD!r}"],
        ),
        (
            _setting(flags=[FLAG], kind="call", name="x.y"),
            ["settings/0/kind: 'variable' was expected"],
        ),
        (_setting(flags=[]), ["settings/0/flags: [] should be non-empty"]),
    ],
    ids=["flags", "and-a-value", "a-space", "a-call", "empty"],
)
def test_the_schema_takes_the_flags_of_a_variable_that_holds_flags(
    setting: dict[str, object], expected: list[str]
) -> None:
    """XLA_FLAGS: its deterministic value is its flags' values, each one word XLA can split."""
    document = {"library": "X", "packages": [], "settings": [setting]}
    assert problems(document) == expected


def test_a_variable_of_flags_has_their_values_in_order_as_its_deterministic_value() -> None:
    (entry,) = for_name("XLA_FLAGS")
    assert entry.deterministic == " ".join(f"{f.flag}={f.deterministic}" for f in entry.flags)
    assert [f.flag for f in entry.flags] == [
        "--xla_gpu_deterministic_ops",
        "--xla_gpu_autotune_level",
        "--xla_gpu_enable_triton_gemm",
        "--xla_gpu_enable_command_buffer",
    ]
    assert all(SOURCE.match(f.source) and "openxla/xla@" in f.source for f in entry.flags)


def test_the_schema_refuses_a_reviewed_group_without_a_source() -> None:
    document = {
        "library": "X",
        "packages": [],
        "settings": [_setting(deterministic="1")],
        "reviewed": [{"names": ["X_DEBUG"], "why": "logging"}],
    }
    assert problems(document) == ["reviewed/0: 'source' is a required property"]


def test_no_variable_is_both_a_setting_and_reviewed() -> None:
    settings = {e.name for e in entries() if e.kind is Kind.VARIABLE}
    reviewed = {n for group in REVIEWED for n in group.names}
    assert settings & reviewed == set()


# The native settings issue 46 names, each as the catalogue decided it: the deterministic value,
# `unset` for one that must stay unset, or `reviewed` for one left out of recipes on purpose
# (the group's `why` says why; the note of the change grades each).
ISSUE_46 = {
    "NCCL_WIN_ENABLE": ("NCCL", Platform.CUDA, "0"),
    "NCCL_NVLS_ENABLE": ("NCCL", Platform.CUDA, "0"),
    "NCCL_TUNER_PLUGIN": ("NCCL", Platform.CUDA, "unset"),
    "NCCL_PROTO": ("NCCL", None, "reviewed"),
    "NCCL_MIN_NCHANNELS": ("NCCL", None, "reviewed"),
    "NCCL_MAX_NCHANNELS": ("NCCL", None, "reviewed"),
    "RCCL_MSCCL_ENABLE": ("RCCL", Platform.ROCM, "0"),
    "RCCL_MSCCLPP_ENABLE": ("RCCL", Platform.ROCM, "0"),
    "NVTE_CK_IS_V3_ATOMIC_FP32": ("Transformer Engine", None, "reviewed"),
    "NVTE_FUSED_ATTN_CK": ("Transformer Engine", None, "reviewed"),
    "NVTE_USE_HIPBLASLT": ("Transformer Engine", None, "reviewed"),
    "NVTE_USE_ROCBLAS": ("Transformer Engine", None, "reviewed"),
    "TE_HIPBLASLT_ALGO_SELECTION": ("Transformer Engine", None, "reviewed"),
    "NVTE_NORM_FWD_USE_CUDNN": ("Transformer Engine", Platform.CUDA, "0"),
    "NVTE_NORM_BWD_USE_CUDNN": ("Transformer Engine", Platform.CUDA, "0"),
    "NVTE_USE_CUTLASS_GROUPED_GEMM": ("Transformer Engine", Platform.CUDA, "0"),
    "NVTE_RS_STRIDED_ATOMIC": ("Transformer Engine", None, "reviewed"),
    "NVTE_EXT_MARGIN_SM": ("Transformer Engine", None, "reviewed"),
    "NVTE_USE_FAST_MATH": ("Transformer Engine", Platform.CUDA, "0"),
    "HK_BWD_DQ_KVB": ("Primus-Turbo", Platform.ROCM, "unset"),
    "HK_BWD_DKDV_SEL": ("Primus-Turbo", Platform.ROCM, "unset"),
    "DISABLE_ADDMM_CUDA_LT": ("torch", None, "reviewed"),
    "TORCH_BLAS_PREFER_CUBLASLT": ("torch", None, "reviewed"),
    "CUBLASLT_WORKSPACE_SIZE": ("torch", None, "reviewed"),
    "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": ("torch", Platform.CUDA, "unset"),
    "NVIDIA_TF32_OVERRIDE": ("cuBLAS", Platform.CUDA, "unset"),
}


@pytest.mark.parametrize("name", sorted(ISSUE_46))
def test_every_setting_issue_46_names_is_catalogued(name: str) -> None:
    library, platform, decided = ISSUE_46[name]
    found = [e for e in for_name(name) if e.library == library]
    if decided == "reviewed":
        assert not found
        assert any(name in g.names and g.library == library for g in REVIEWED), name
        return
    [entry] = found
    assert entry.platform is platform
    assert (entry.value_text if decided != "unset" else "unset") == (
        decided if not entry.must_stay_unset else "unset"
    )
    assert SOURCE.match(entry.source)


# ROCm Transformer Engine's run-time Triton switches (issue 38): each read by the pinned
# commit with default '0', each off in a bitwise run; the amax switch is reviewed (a maximum
# is exact in any order).
ISSUE_38 = {
    "NVTE_USE_CAST_TRANSPOSE_TRITON": "0",
    "NVTE_USE_RMSNORM_TRITON": "0",
    "NVTE_USE_LAYERNORM_TRITON": "0",
    "NVTE_USE_ATOMIC_AMAX": "reviewed",
}


@pytest.mark.parametrize("name", sorted(ISSUE_38))
def test_the_rocm_transformer_engine_triton_switches_are_catalogued(name: str) -> None:
    found = [e for e in for_name(name) if e.library == "Transformer Engine"]
    if ISSUE_38[name] == "reviewed":
        assert not found
        assert any(name in g.names and g.library == "Transformer Engine" for g in REVIEWED)
        return
    [entry] = found
    assert (entry.platform, entry.default, entry.value_text) == (Platform.ROCM, "0", "0")
    assert entry.source.startswith("ROCm/TransformerEngine@")
    assert SOURCE.match(entry.source)


def test_a_safe_value_opposite_to_the_default_is_said() -> None:
    entry = for_name("NCCL_WIN_ENABLE")[0]
    assert entry.default_note == "1 (the deterministic value is the opposite)"
    same = for_name("NVTE_NORM_FWD_USE_CUDNN")[0]
    assert same.default_note == "0 (the same: a recipe pins it against a launcher that changes it)"


def test_the_issue_libraries_are_covered() -> None:
    assert set(libraries()) >= {
        "NCCL", "RCCL", "cuBLAS", "cuDNN", "rocBLAS", "hipBLASLt", "MIOpen",
        "Transformer Engine", "torch", "Triton", "XLA", "Python",
    }  # fmt: skip


def test_the_scanner_table_agrees_with_the_catalogue() -> None:
    """scanner.determinism proposes role `stack` (the scanner may not read package data);
    each of its settings is catalogued with the same value."""
    for name, setting in SETTINGS.items():
        assert {e.value_text for e in for_name(name)} == {setting.value}, name


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        (
            Platform.CUDA,
            [
                "CUBLAS_WORKSPACE_CONFIG",
                "NVIDIA_TF32_OVERRIDE",
                "torch.backends.cudnn.benchmark",
                "torch.backends.cudnn.deterministic",
                "NCCL_ALGO",
                "NCCL_WIN_ENABLE",
                "NCCL_NVLS_ENABLE",
                "NCCL_TUNER_PLUGIN",
                "PYTHONHASHSEED",
                "TORCH_COMPILE_DISABLE",
                "torch.use_deterministic_algorithms",
                "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
            ],
        ),
        (
            Platform.ROCM,
            [
                "PYTORCH_TUNABLEOP_ENABLED",
                "MIOPEN_DEBUG_CONVOLUTION_DETERMINISTIC",
                "PYTHONHASHSEED",
                "NCCL_ALGO",
                "RCCL_MSCCL_ENABLE",
                "RCCL_MSCCLPP_ENABLE",
                "NCCL_TUNER_PLUGIN",
                "ROCBLAS_DEFAULT_ATOMICS_MODE",
                "TORCH_COMPILE_DISABLE",
                "torch.use_deterministic_algorithms",
            ],
        ),
        (None, ["PYTHONHASHSEED", "TORCH_COMPILE_DISABLE", "torch.use_deterministic_algorithms"]),
    ],
)
def test_applicable_for_torch(platform: Platform | None, expected: list[str]) -> None:
    assert [e.name for e in applicable(["torch"], platform)] == expected


def test_package_names_compare_normalised() -> None:
    names = [e.name for e in applicable(["Transformer_Engine"], None)]
    # NVTE_FUSED_ATTN is scoped to TE's JAX side: stack_use reads the project's code for it.
    assert names == ["PYTHONHASHSEED", "NVTE_ALLOW_NONDETERMINISTIC_ALGO", "NVTE_FUSED_ATTN"]


@pytest.mark.parametrize(("args", "golden"), [((), "all.txt"), (("rocBLAS",), "rocblas.txt")])
def test_catalogue_command_golden(tmp_path: Path, args: tuple[str, ...], golden: str) -> None:
    result = run_knobs("catalogue", *args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (GOLDEN / golden).read_text(encoding="utf-8")


def test_catalogue_unknown_library(tmp_path: Path) -> None:
    result = run_knobs("catalogue", "ncl", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        "Error: no library 'ncl' in the catalogue; the libraries are cuBLAS, cuDNN, hipBLASLt, "
        "MIOpen, NCCL, Primus-Turbo, Python, RCCL, rocBLAS, torch, Transformer Engine, Triton, "
        "vLLM, XLA. "
        "Did you mean NCCL?\n"
    )


def test_the_wheel_ships_the_catalogue() -> None:
    """pyproject.toml's package-data names the schema and every data file."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"catalogue/schema.json", "catalogue/data/*.yaml",' in text
    shipped = sorted(p.name for p in (REPO / "knobregistry" / "catalogue" / "data").iterdir())
    assert shipped == FILES
