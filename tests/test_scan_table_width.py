"""The scan table (and check's report) on a real terminal at 80 and 120 columns: every
column kept, no line wider than the terminal, names never broken (a row whose name does
not fit goes under it), headers wrap; names with control characters are escaped."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import write_tree
from tests.terminal import on_a_terminal

TREE = {
    "torch_like/_inductor/config_with_a_long_module_name.py": """
        import os

        A = os.environ.get("TORCHINDUCTOR_VERY_LONG_KNOB_NAME_FOR_FUSED_KERNELS", "1") != "0"
        B = os.environ.get("TORCHINDUCTOR_MAX_AUTOTUNE", "off") == "on"
        C = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "/tmp/a/very/long/default/path/for/the/cache")
        D = os.environ.get("X\\x1b[31mRED\\nLINE", "1") != "0"
        """,
}


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _on_a_terminal(root: Path, columns: int, *args: str) -> str:
    """`knobs scan torch_like` (or ``args``) with stdout on a pseudo-terminal COLUMNS wide."""
    _, stderr, shown = on_a_terminal(
        [sys.executable, "-m", "knobregistry", *(args or ("scan", "torch_like"))],
        root,
        {**os.environ, "COLUMNS": str(columns), "TERM": "xterm", "NO_COLOR": "1"},
        terminal="stdout",
    )
    assert stderr == ""
    return shown.replace("\r\n", "\n")


NAMES = (
    "TORCHINDUCTOR_CACHE_DIR",
    "TORCHINDUCTOR_MAX_AUTOTUNE",
    "TORCHINDUCTOR_VERY_LONG_KNOB_NAME_FOR_FUSED_KERNELS",
    "X\\x1b[31mRED\\nLINE",  # escaped: no colour, no line break from a name
)


@pytest.mark.parametrize("columns", [80, 120])
def test_every_column_is_kept(tmp_path: Path, columns: int) -> None:
    root = write_tree(tmp_path, TREE)
    raw = _on_a_terminal(root, columns)
    lines = ANSI.sub("", raw).splitlines()
    assert max(len(line) for line in lines) <= columns
    # Too long for a column beside eight others: at 80 each name on a line of its own; at
    # 120 only the name too long for the column most names fit.
    alone = sorted(NAMES) if columns == 80 else [NAMES[2]]
    assert [line for line in lines if line in NAMES] == alone
    rule = next(i for i, line in enumerate(lines) if line.lstrip().startswith("─"))
    header = " ".join(" ".join(lines[:rule]).split())
    assert header == "knob default on by polarity role off read sites default? value in"
    # A path breaks after a '/', and a name too long for the column after a '_': nothing is
    # cut, and `file:line` stays whole.
    sites = [line.split()[-1] for line in lines if ".py:" in line]
    assert [re.sub(r".*?(\d+)$", r"\1", s) for s in sites] == ["5", "4", "3", "6"]
    assert all(re.fullmatch(r"((config_with_a_long_)?module_)?name\.py:\d", s) for s in sites)
    assert "…" not in raw
    assert "\x1b[31m" not in raw
    assert lines[-1] == "4 knobs (2 on by default), 0 dynamic reads, 0 errors; 1 file scanned."


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_the_set_by_column_is_kept_whole(tmp_path: Path, columns: int) -> None:
    where = "torch_like/launch/run_the_inductor_benchmarks.sh"
    root = write_tree(
        tmp_path,
        {
            **TREE,
            where: (
                "export TORCHINDUCTOR_MAX_AUTOTUNE=on\n"
                "TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) python -m torch_like\n"
            ),
        },
    )
    lines = ANSI.sub("", _on_a_terminal(root, columns)).splitlines()
    assert max(len(line) for line in lines) <= columns
    rule = next(i for i, line in enumerate(lines) if line.lstrip().startswith("─"))
    assert " ".join(" ".join(lines[:rule]).split()).endswith("sites set by default? value in")
    for number, value in ((2, "computed"), (1, "'on'")):
        # the path may break after a '/' (a name too long for the column after a '_' or
        # '.'), never between the file and its line; the value follows on its line or under
        assert [
            i
            for i, line in enumerate(lines[:-1])
            if re.search(rf"(marks\.)?sh:{number}( {value})?$", line)
            and (line.endswith(value) or lines[i + 1].endswith(value))
        ]


@pytest.mark.parametrize("columns", [80, 120])
def test_check_on_a_terminal_breaks_its_sentences_not_its_entry(
    tmp_path: Path, columns: int
) -> None:
    root = write_tree(
        tmp_path, {**TREE, "registry.yaml": "version: 1\nscan:\n  paths: [torch_like]\n"}
    )
    lines = ANSI.sub("", _on_a_terminal(root, columns, "check")).splitlines()
    # The entry to paste is never broken: a line of it may be wider than the terminal.
    entry = [line for line in lines if line.startswith("      ")]
    assert "      TORCHINDUCTOR_VERY_LONG_KNOB_NAME_FOR_FUSED_KERNELS:" in entry
    assert [line for line in lines if len(line) > columns and line not in entry] == []
    assert lines[0].startswith("torch_like/_inductor/config_with_a_long_module_name.py:")
    assert lines[-1].startswith("Found 3 errors")  # the name with control characters cannot be
    # registered, so check leaves it out as init does (tests/test_adopt.py)
