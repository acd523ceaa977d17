"""Documents found valid are remembered by schema and data, and by nothing less."""

from __future__ import annotations

from pathlib import Path

import pytest

from knobregistry._io.validated import (
    FOLDER,
    known_valid,
    problems_unless_known_valid,
    remember_valid,
)
from knobregistry.registry import RegistryError, load_registry
from tests.conftest import write_tree

SCHEMA = '{"type": "object"}'


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KNOBS_CACHE_DIR", str(folder))
    return folder


def test_a_document_is_known_valid_once_remembered(cache: Path) -> None:
    data = {"version": 1, "knobs": {"A": {"default": "1"}}}
    assert not known_valid(SCHEMA, data)
    remember_valid(SCHEMA, data)
    assert known_valid(SCHEMA, data)
    assert known_valid(SCHEMA, {"version": 1, "knobs": {"A": {"default": "1"}}})  # equal data
    (marker,) = (cache / FOLDER).iterdir()
    assert marker.read_bytes() == b""


@pytest.mark.parametrize(
    "other",
    [
        {"value": "1"},
        {"value": 1.0},
        {"value": True},
        {"value": None},
        {"value": [1]},
        {"other": 1},
        {1: 1},
    ],
    ids=repr,
)
def test_data_that_differs_in_value_type_or_key_is_not_known_valid(
    cache: Path, other: object
) -> None:
    remember_valid(SCHEMA, {"value": 1})
    assert not known_valid(SCHEMA, other)


def test_the_same_data_under_another_schema_is_not_known_valid(cache: Path) -> None:
    remember_valid(SCHEMA, {"value": 1})
    assert not known_valid('{"type": "array"}', {"value": 1})


def test_a_cache_folder_that_cannot_be_written_means_validating_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be", encoding="utf-8")
    monkeypatch.setenv("KNOBS_CACHE_DIR", str(blocker))
    remember_valid(SCHEMA, {"value": 1})  # no error
    assert not known_valid(SCHEMA, {"value": 1})


def test_loading_a_valid_registry_remembers_it_and_an_invalid_one_is_not(
    tmp_path: Path, cache: Path
) -> None:
    write_tree(
        tmp_path,
        {
            "good/registry.yaml": """
                version: 1
                knobs:
                  DEMO_FUSED: {default: "1", default_on: true, triage: untriaged}
                """,
            "bad/registry.yaml": """
                version: 1
                knobs:
                  DEMO_FUSED: {default: "1", default_on: true, triage: untriaged, kernal: x}
                """,
        },
    )
    load_registry(tmp_path / "good" / "registry.yaml")
    assert len(list((cache / FOLDER).iterdir())) == 1
    for _ in range(2):
        with pytest.raises(RegistryError, match="kernal: unknown key"):
            load_registry(tmp_path / "bad" / "registry.yaml")
    assert len(list((cache / FOLDER).iterdir())) == 1
    assert load_registry(tmp_path / "good" / "registry.yaml").knobs["DEMO_FUSED"].default == "1"


def test_problems_are_looked_for_until_a_document_is_found_valid(cache: Path) -> None:
    calls: list[object] = []

    def find(found: list[str]) -> list[str]:
        calls.append(found)
        return found

    data = {"value": 1}
    assert problems_unless_known_valid(SCHEMA, data, lambda: find(["bad"])) == ["bad"]
    assert not known_valid(SCHEMA, data)  # a failure is not remembered
    assert problems_unless_known_valid(SCHEMA, data, lambda: find([])) == []
    assert known_valid(SCHEMA, data)
    assert problems_unless_known_valid(SCHEMA, data, lambda: find(["never asked"])) == ()
    assert calls == [["bad"], []]
