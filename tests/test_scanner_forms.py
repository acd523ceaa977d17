"""Every source form the scanner handles: one fixture folder each, under tests/data/forms.

Each file states the reads it holds with marker comments (tests/scanner_markers.py):
name, line and column (from the caret), gate kind, default, verdict, off value,
polarity, function, read kind and wrapper. A new form is a new folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, Polarity, ReadKind, scan
from tests.conftest import REPO, write_tree
from tests.scanner_markers import ExpectedRead, expected_reads, marker_for, parse_marker, reads_of

FORMS = REPO / "tests" / "data" / "forms"
CASES = sorted(p.name for p in FORMS.iterdir() if p.is_dir())


def test_every_form_states_what_it_reads() -> None:
    assert len(CASES) >= 32
    for case in CASES:
        assert expected_reads(FORMS / case), case


@pytest.mark.parametrize("case", CASES)
def test_source_form(case: str) -> None:
    root = FORMS / case
    result = scan([root], root=root)
    assert result.errors == ()
    assert result.dynamic == ()
    assert result.stats.files_parsed >= 1
    assert reads_of(result) == expected_reads(root)


@pytest.mark.parametrize("case", CASES)
def test_source_form_through_the_cache(case: str, tmp_path: Path) -> None:
    """The same reads with the cache, cold and warm: what a file's own rounds store for the
    scan's next round is what that round would find."""
    root = FORMS / case
    for _ in ("cold", "warm"):
        result = scan([root], root=root, cache_dir=tmp_path / "cache")
        assert reads_of(result) == expected_reads(root)


def test_a_marker_places_its_read_by_its_caret() -> None:
    marker = '    #  ^ PRIMUS_A off kind=presence default="x" polarity=disable read=contains'
    assert parse_marker(marker, path="m.py", line=7) == ExpectedRead(
        name="PRIMUS_A",
        path="m.py",
        line=7,
        column=8,
        kind=GateKind.PRESENCE,
        default="x",
        default_on=False,
        off_value=None,
        polarity=Polarity.DISABLE,
        read=ReadKind.CONTAINS,
    )
    assert parse_marker("# an ordinary comment", path="m.py", line=7) is None
    read = parse_marker('#   ^ PRIMUS_B none default="64"', path="m.py", line=3)
    assert read is not None and (read.column, read.kind, read.off_value) == (
        5,
        GateKind.VALUE,
        None,
    )
    assert marker_for(read) == '#   ^ PRIMUS_B none default="64"'


def test_a_wrong_marker_fails_the_form(tmp_path: Path) -> None:
    source = 'import os\n\nUSE = os.environ.get("PRIMUS_A", "1") != "0"\n'
    write_tree(tmp_path, {"m.py": source + '#     ^ PRIMUS_A on default="1" off="0"\n'})
    assert reads_of(scan([tmp_path], root=tmp_path)) == expected_reads(tmp_path)
    for wrong in ('#    ^ PRIMUS_A on default="1" off="0"', '#     ^ PRIMUS_A on default="1"'):
        write_tree(tmp_path, {"m.py": source + wrong + "\n"})
        assert reads_of(scan([tmp_path], root=tmp_path)) != expected_reads(tmp_path)


def test_presence_gate_has_no_off_value_but_unset(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": 'import os\n\nif "PRIMUS_P" in os.environ:\n    go()\n'})
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    assert knob.sites[0].gate.kind is GateKind.PRESENCE
    assert knob.sites[0].gate.off_values == ()
    assert knob.off_value is None


def test_off_values_list_exactly_the_values_that_turn_the_gate_off(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": 'import os\n\nON = os.environ.get("PRIMUS_A", "1") != "0"\n'})
    (knob,) = scan([tmp_path], root=tmp_path).knobs
    # Only "0" turns a `!= "0"` gate off: "false" leaves it on.
    assert knob.sites[0].gate.off_values == ("0",)
    assert "false" in knob.sites[0].gate.on_values
