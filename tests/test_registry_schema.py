"""The registry's schema as written: schema.json holds neither the languages nor the compare
modes; `knobs init`'s copy (and validation) has both, filled in from their tables, so a new
language or mode is never written into the schema by hand, and never missing from it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from knobregistry.registry.schema import FILLED, SCHEMA, mode_names, schema_text
from knobregistry.triage import modes
from scanner.languages import LANGUAGES
from tests.conftest import REPO, run_knobs


def written_schema(root: Path) -> dict[str, Any]:
    """The registry.schema.json `knobs init` writes in a fresh folder."""
    (root / ".git").mkdir()
    (root / "src").mkdir()
    (root / "src/m.py").write_text('import os\nos.environ.get("A_KNOB")\n', encoding="utf-8")
    done = run_knobs("init", "src", cwd=root)
    assert done.returncode == 0, done.stderr
    schema: dict[str, Any] = json.loads((root / "registry.schema.json").read_text("utf-8"))
    return schema


def test_the_written_schema_lists_every_language_and_mode_of_the_tables(tmp_path: Path) -> None:
    schema = written_schema(tmp_path)
    language = schema["$defs"]["scan"]["properties"]["languages"]["additionalProperties"]
    names = [row.language.value for row in LANGUAGES]
    assert language["enum"] == names
    assert all(name in language["description"] for name in names)
    compare = schema["$defs"]["record"]["properties"]["compare"]
    for mode in modes.MODES:
        written = f"{mode.name}:x" if mode.argument else mode.name
        assert re.fullmatch(compare["pattern"], written), mode.usage
        assert f"`{mode.usage}`" in compare["description"]
        assert mode.usage in re.split(", | or ", compare["patternErrorMessage"][len("write ") :])
    assert not re.fullmatch(compare["pattern"], "bytes")
    assert all(not re.fullmatch(compare["pattern"], f"{m.name}:") for m in modes.MODES)


def test_the_modes_the_schema_reads_are_the_table() -> None:
    """The schema reads the modes' declarations from their source (triage sits above the
    registry): the same names, arguments and order as the table triage imports."""
    read = [(m.name, m.argument, m.place) for m in mode_names()]
    assert read == [(m.name, m.argument, m.place) for m in modes.MODES]


def test_a_mode_declared_without_literals_is_refused(tmp_path: Path) -> None:
    (tmp_path / "odd.py").write_text('NAME = "odd"\nMODE = Mode(name=NAME, argument="", place=1)\n')
    (tmp_path / "helper.py").write_text("def f() -> None: ...\n")
    with pytest.raises(ValueError) as raised:
        mode_names(tmp_path)
    assert str(raised.value) == (
        f"{tmp_path / 'odd.py'}: MODE = Mode(...) must give name, argument and place as "
        "literals (the registry's schema reads them from the source)"
    )


def test_only_the_lists_are_filled_in() -> None:
    """The written schema is schema.json but for the two places the tables fill."""
    shipped = json.loads(SCHEMA.read_text("utf-8"))
    written = json.loads(schema_text())
    for keys, _ in FILLED:
        *parents, last = keys
        for document in (shipped, written):
            node = document
            for key in parents:
                node = node[key]
            node[last] = None
    assert written == shipped


@pytest.mark.parametrize("name", ["schema.json", "written"])
def test_both_schemas_are_json_schemas(name: str) -> None:
    """The file the repository's registry.yaml names, and the copy `knobs init` writes."""
    text = schema_text() if name == "written" else SCHEMA.read_text("utf-8")
    Draft202012Validator.check_schema(json.loads(text))
    first = (REPO / "registry.yaml").read_text("utf-8").splitlines()[0]
    assert first == f"# yaml-language-server: $schema={SCHEMA.relative_to(REPO).as_posix()}"
