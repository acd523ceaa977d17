"""The shipped catalogue of the stack's determinism settings: every file valid against its
schema, every entry with a source, and `knobs catalogue` printing them (golden output)."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest
import yaml

from knobregistry.catalogue import Entry, Platform, applicable, entries, for_name, libraries
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


def test_the_issue_libraries_are_covered() -> None:
    assert set(libraries()) >= {
        "NCCL", "RCCL", "cuBLAS", "cuDNN", "rocBLAS", "hipBLASLt", "MIOpen",
        "Transformer Engine", "torch", "Triton", "XLA", "Python",
    }  # fmt: skip


def test_the_scanner_table_agrees_with_the_catalogue() -> None:
    """scanner.determinism proposes role `stack` (the scanner may not read package data);
    each of its settings is catalogued with the same value, except Primus-Turbo's, a
    framework library the catalogue leaves to a project's registry."""
    for name, setting in SETTINGS.items():
        if name == "PRIMUS_TURBO_AUTO_TUNE":
            continue
        assert {e.value_text for e in for_name(name)} == {setting.value}, name


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        (
            Platform.CUDA,
            [
                "CUBLAS_WORKSPACE_CONFIG",
                "torch.backends.cudnn.benchmark",
                "torch.backends.cudnn.deterministic",
                "NCCL_ALGO",
                "PYTHONHASHSEED",
                "TORCH_COMPILE_DISABLE",
                "torch.use_deterministic_algorithms",
            ],
        ),
        (
            Platform.ROCM,
            [
                "PYTORCH_TUNABLEOP_ENABLED",
                "MIOPEN_DEBUG_CONVOLUTION_DETERMINISTIC",
                "PYTHONHASHSEED",
                "NCCL_ALGO",
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
    assert names == ["PYTHONHASHSEED", "NVTE_ALLOW_NONDETERMINISTIC_ALGO"]


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
        "MIOpen, NCCL, Python, RCCL, rocBLAS, torch, Transformer Engine, Triton, XLA. "
        "Did you mean NCCL?\n"
    )


def test_the_wheel_ships_the_catalogue() -> None:
    """pyproject.toml's package-data names the schema and every data file."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"catalogue/schema.json", "catalogue/data/*.yaml",' in text
    shipped = sorted(p.name for p in (REPO / "knobregistry" / "catalogue" / "data").iterdir())
    assert shipped == FILES
