"""The types of trainer config keys, read from the source of the config classes (never
imported), and what `knobs scan` makes of a YAML knob that feeds one."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from knobregistry.project import trainer_types
from knobregistry.project.trainer_types import trainer_config_types
from scanner.launcher.config_classes import field_types
from tests.conftest import run_knobs, write_tree

# (annotation, the type a verdict reads from it)
ANNOTATIONS = [
    ("bool", "bool"),
    ("int", "number"),
    ("float", "number"),
    ("str", "text"),
    ("Optional[bool]", "bool"),
    ("typing.Optional[int]", "number"),
    ("bool | None", "bool"),
    ("None | float", "number"),
    ("Union[str, None]", "text"),
    ('Literal["bf16", "fp16"]', "text"),
    ('"bool"', "bool"),
    ("Literal[1, 2]", None),
    ("list[int]", None),
    ("Union[int, str]", None),
    ("Callable[[], None]", None),
    ('"not an annotation ("', None),
]


@pytest.mark.parametrize(("annotation", "kind"), ANNOTATIONS, ids=[a for a, _ in ANNOTATIONS])
def test_an_annotation_types_its_field(annotation: str, kind: str | None) -> None:
    source = f"@dataclass\nclass Config:\n    key: {annotation} = None\n"
    assert field_types(source) == ({"key": kind} if kind else {})


def test_only_class_fields_count_and_two_classes_that_disagree_make_it_mixed() -> None:
    source = textwrap.dedent(
        """
        width: int = 3

        class A:
            fused: bool = True
            size: int = 1
            name = "plain assignment, no annotation"

            def f(self) -> None:
                local: bool = False

        class B:
            size: str = "1"
        """
    )
    assert field_types(source) == {"fused": "bool", "size": "mixed"}


def test_a_file_that_does_not_parse_types_nothing() -> None:
    assert field_types("class A:\n    x: bool = (\n") == {}


def test_megatron_core_types_its_transformer_config_keys() -> None:
    pytest.importorskip("megatron.core")
    types = trainer_config_types()
    assert {key: types.get(key) for key in ("deterministic_mode", "bf16", "num_layers")} == {
        "deterministic_mode": "bool",
        "bf16": "bool",
        "num_layers": "number",
    }


def test_the_types_are_kept_under_the_status_of_their_source_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "config.py"
    source.write_text("class C:\n    fused: bool = True\n", encoding="utf-8")
    monkeypatch.setenv("KNOBS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(trainer_types, "_source_files", lambda: iter([source]))
    read = trainer_types.trainer_config_types.__wrapped__  # without the per-process cache
    assert dict(read()) == {"fused": "bool"}
    (stored,) = (tmp_path / "cache" / "trainer-types").iterdir()
    stored.write_text('{"fused": "number"}\n', encoding="utf-8")
    assert dict(read()) == {"fused": "number"}  # the stored table is read, not the source
    stored.write_text("{not json", encoding="utf-8")
    assert dict(read()) == {"fused": "bool"}  # a damaged table is read again from the source
    stored.write_text('{"fused": ["bool"]}\n', encoding="utf-8")
    assert dict(read()) == {"fused": "bool"}  # so is one that is not a table of types
    source.write_text("class C:\n    fused: int = 1\n", encoding="utf-8")
    assert dict(read()) == {"fused": "number"}  # an edited source is read again
    assert len(list((tmp_path / "cache" / "trainer-types").iterdir())) == 2


def test_scan_judges_a_yaml_knob_by_the_trainer_key_it_feeds(tmp_path: Path) -> None:
    pytest.importorskip("megatron.core")
    write_tree(
        tmp_path,
        {"exp.yaml": "overrides:\n  deterministic_mode: ${X_DET:0}\n  mystery: ${X_M:0}\n"},
    )
    result = run_knobs("scan", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    import json

    knobs = {k["name"]: (k["default_on"], k["role"]) for k in json.loads(result.stdout)["knobs"]}
    assert knobs == {"X_DET": (False, "determinism"), "X_M": (None, "unknown")}
