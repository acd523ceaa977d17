"""The catalogue is the one source of the settings the scanner knows by name: the entries with a
``scanner:`` block give scanner/stack_settings.py (generated, so that the scanner reads no YAML
and imports nothing from knobregistry), and a test fails while the two differ."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from knobregistry.catalogue import CatalogueError, entries, for_name, scanner_table
from knobregistry.catalogue.load import problems
from knobregistry.catalogue.model import Entry, ScannerName
from knobregistry.profiles.candidates import deterministic_value
from scanner import stack_settings
from scanner.determinism import SETTINGS
from tests.conftest import REPO
from tests.test_catalogue import _setting


def test_the_scanner_module_is_what_the_catalogue_gives() -> None:
    module = REPO / "scanner" / scanner_table.MODULE
    assert scanner_table.target() == module
    assert module.read_text("utf-8") == scanner_table.text(), (
        f"scanner/{scanner_table.MODULE} differs from the catalogue: run `{scanner_table.COMMAND}`"
    )


def test_the_scanner_knows_each_marked_setting_with_the_catalogue_value() -> None:
    marked = {e.name: (e.scanner, e.deterministic) for e in entries() if e.scanner is not None}
    assert list(SETTINGS) == [name for name, *_ in stack_settings.SETTINGS]
    assert list(SETTINGS) == sorted(marked, key=lambda name: marked[name][0].order)
    for name, setting in SETTINGS.items():
        mark, value = marked[name]
        assert (setting.value, setting.effect) == (value, mark.gives)
        assert setting.library == " / ".join(e.library for e in for_name(name))


def test_the_recipe_finds_each_of_them_in_the_catalogue() -> None:
    """The recipe's value of a stack knob comes from the catalogue alone: every setting the
    scanner knows is a catalogued variable with one value (no second table to fall back on)."""
    for name, setting in SETTINGS.items():
        assert deterministic_value(name) == setting.value, name


def _marked(marks: dict[tuple[str, str], ScannerName]) -> tuple[Entry, ...]:
    """The catalogue's entries, with ``marks`` (by library and variable) as their blocks."""
    return tuple(
        dataclasses.replace(e, scanner=marks[(e.library, e.name)])
        if (e.library, e.name) in marks
        else e
        for e in entries()
    )


def test_a_change_to_the_data_changes_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    before = scanner_table.text()
    mark = ScannerName(order=2, gives="the ring algorithm, whatever the topology")
    monkeypatch.setattr(scanner_table, "entries", lambda: _marked({("NCCL", "NCCL_ALGO"): mark}))
    after = scanner_table.text()
    assert after != before
    assert '"the ring algorithm, whatever the topology",\n' in after


def test_a_setting_marked_in_the_data_joins_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    mark = ScannerName(order=7, gives="no symmetric-window kernels")
    monkeypatch.setattr(
        scanner_table, "entries", lambda: _marked({("NCCL", "NCCL_WIN_ENABLE"): mark})
    )
    assert scanner_table.rows()[-1] == (
        "NCCL_WIN_ENABLE",
        "0",
        "NCCL",
        "no symmetric-window kernels",
    )


def test_two_blocks_with_one_order_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    mark = ScannerName(order=2, gives="x")
    monkeypatch.setattr(
        scanner_table, "entries", lambda: _marked({("NCCL", "NCCL_WIN_ENABLE"): mark})
    )
    with pytest.raises(CatalogueError, match=r"one order, 2 \(NCCL_ALGO, NCCL_WIN_ENABLE\)"):
        scanner_table.rows()


def test_two_blocks_for_one_variable_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    mark = ScannerName(order=7, gives="x")
    monkeypatch.setattr(scanner_table, "entries", lambda: _marked({("RCCL", "NCCL_ALGO"): mark}))
    with pytest.raises(CatalogueError, match=r"name one variable, NCCL_ALGO \(NCCL, RCCL\)"):
        scanner_table.rows()


def test_a_long_reason_is_split_into_pieces_that_join_to_it() -> None:
    gives = " ".join(["word"] * 60)
    pieces = scanner_table._pieces(gives)
    assert len(pieces) > 1
    assert all(len(p) <= 88 for p in pieces)
    assert "".join(ast.literal_eval(p) for p in pieces) == gives


def test_the_command_rewrites_a_stale_module(tmp_path: Path) -> None:
    stale = tmp_path / scanner_table.MODULE
    stale.write_text("SETTINGS = ()\n", encoding="utf-8")
    assert scanner_table.main([str(stale)]) == 0
    assert stale.read_text("utf-8") == scanner_table.text()
    assert scanner_table.main([str(stale)]) == 0  # up to date: left as it is


def test_the_command_runs_as_a_module(tmp_path: Path) -> None:
    """`python -m knobregistry.catalogue.scanner_table PATH` (what make catalogue-table runs,
    without PATH) writes the module; a test never rewrites the repository's own."""
    written = tmp_path / scanner_table.MODULE
    done = subprocess.run(
        [sys.executable, "-m", "knobregistry.catalogue.scanner_table", str(written)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"{written}: rewritten from the catalogue\n",
        "",
    )
    assert written.read_text("utf-8") == scanner_table.text()


MARK = {"order": 1, "gives": "g"}


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        (_setting(scanner=MARK, deterministic="1"), []),
        (
            _setting(scanner=MARK, kind="call", name="x.y", deterministic=True),
            ["settings/0/kind: 'variable' was expected"],
        ),
        (
            _setting(scanner=MARK, deterministic="1", shared=True),
            ["settings/0/shared: False was expected"],
        ),
        (
            _setting(scanner=MARK, must_stay_unset=True),
            ["settings/0: 'deterministic' is a required property"],
        ),
        (
            _setting(scanner={"order": 0, "gives": "g"}, deterministic="1"),
            ["settings/0/scanner/order: 0 is less than the minimum of 1"],
        ),
        (
            _setting(scanner={"order": 1}, deterministic="1"),
            ["settings/0/scanner: 'gives' is a required property"],
        ),
    ],
    ids=["variable", "a-call", "shared", "unset", "order-0", "no-reason"],
)
def test_the_schema_takes_a_scanner_block_on_a_variable_with_a_value(
    setting: dict[str, object], expected: list[str]
) -> None:
    assert problems({"library": "X", "packages": [], "settings": [setting]}) == expected
