"""One ``scanner.Settings`` from the command line to the workers: its cache key is derived
from its fields, so a setting cannot be left out of it (a stale cache hit)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from scanner import Settings, scan
from tests.conftest import write_tree

KEYED = [f.name for f in dataclasses.fields(Settings) if f.metadata.get("keyed", True)]
UNKEYED = [f.name for f in dataclasses.fields(Settings) if not f.metadata.get("keyed", True)]


def _changed(value: Any) -> Any:
    """Another value of the same type as ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, tuple):
        return (*value, "EXTRA_*")
    raise AssertionError(f"no other value for {value!r}")


def test_only_file_choosing_settings_are_left_out_of_the_key() -> None:
    assert UNKEYED == ["include", "exclude"]
    assert "languages" in KEYED and "narrow" in KEYED and "max_file_bytes" in KEYED


@pytest.mark.parametrize("name", KEYED)
def test_every_keyed_setting_changes_the_key(name: str) -> None:
    plain = Settings()
    other = dataclasses.replace(plain, **{name: _changed(getattr(plain, name))})
    assert other.key() != plain.key()
    assert Settings().key() == plain.key()  # and the same settings give the same key


@pytest.mark.parametrize("name", UNKEYED)
def test_a_setting_that_only_chooses_files_keeps_the_key(name: str) -> None:
    plain = Settings()
    other = dataclasses.replace(plain, **{name: _changed(getattr(plain, name))})
    assert other.key() == plain.key()


def test_a_field_added_later_is_in_the_key_without_touching_key() -> None:
    wider = dataclasses.make_dataclass(
        "WiderSettings",
        [("new_setting", str, dataclasses.field(default="a"))],
        bases=(Settings,),
        frozen=True,
        kw_only=True,
    )
    assert wider(new_setting="a").key() != wider(new_setting="b").key()
    assert wider(new_setting="a").key() == wider(new_setting="a").key()


def test_a_setting_change_is_never_a_stale_cache_hit(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "src",
        {"launch.py": 'import os\n\nFLAG = read_knob("X_FLAG", "1") != "0"\n'},
    )
    cache = tmp_path / "cache"
    plain = scan([root], root=root, cache_dir=cache, jobs=1)
    assert plain.knobs == ()
    named = scan([root], Settings(accessors=("read_knob",)), root=root, cache_dir=cache, jobs=1)
    assert [(k.name, k.sites[0].line, k.sites[0].column) for k in named.knobs] == [("X_FLAG", 3, 8)]
    assert named.stats.cache_hits == 0
    again = scan([root], Settings(accessors=("read_knob",)), root=root, cache_dir=cache, jobs=1)
    assert (again.knobs, again.stats.cache_hits) == (named.knobs, 1)
