"""Huge files (issue 18): analysed a group of statements at a time, with the same answer.

A file of at least SPLIT_BYTES is cut into groups of independent top-level
statements (scanner/source/split.py). These tests force the cut on small files
(every group as small as it can be) and hold the result against the whole-file
analysis, on the examples, on generated modules, and on a file of many reads
whose every line and column is known.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scanner.source.narrow import text_lines
from scanner.source.split import split
from tests.conftest import REPO, write_tree
from tests.grouped import whole_and_grouped
from tests.strategies import gate_sources, module_sources


def test_the_examples_give_the_same_result_in_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut: list[bool] = []
    whole, grouped = whole_and_grouped(REPO / "examples", monkeypatch, cut)
    assert whole.knobs
    assert grouped == whole


def test_the_scanner_itself_gives_the_same_result_in_groups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cut: list[bool] = []
    whole, grouped = whole_and_grouped(REPO / "scanner", monkeypatch, cut)
    assert sum(cut) >= 5
    assert grouped == whole


MANY = """\
import os
from os import environ as ENV

PREFIX = "MANY_"
ON = ("1", "true")


def flag(name, default="0"):
    return os.environ.get(name, default) in ON


class Settings:
    def __init__(self):
        self.raw = os.getenv("MANY_RAW")

    def fused(self):
        return self.raw == "1"


STORED = os.environ.get("MANY_STORED")
"""


def _many(reads: int) -> tuple[str, list[tuple[str, int, int, str | None, bool | None]]]:
    """A file of ``reads`` module-level and function reads besides MANY's, and each
    read's (name, line, column, default, default_on)."""
    lines = MANY.splitlines(keepends=True)
    expected: list[tuple[str, int, int, str | None, bool | None]] = [
        ("MANY_RAW", 14, 20, None, False),
        ("MANY_STORED", 20, 10, None, None),
    ]
    for at in range(reads):
        if at % 3 == 0:
            lines.append(f'K{at} = os.environ.get(PREFIX + "{at}", "1") != "0"\n')
            expected.append((f"MANY_{at}", len(lines), 5 + len(str(at)), "1", True))
        elif at % 3 == 1:
            lines += ["\n", "\n", f"def f{at}():\n"]
            lines.append(f'    if ENV.get("MANY_{at}", "0") == "1":\n')
            expected.append((f"MANY_{at}", len(lines), 8, "0", False))
            lines += ["        return 'fused'\n", "    return 'eager'\n", "\n", "\n"]
        else:
            lines.append(f'F{at} = flag("MANY_{at}", default="1")\n')
            expected.append((f"MANY_{at}", len(lines), 5 + len(str(at)), "1", True))
    lines.append("FUSED = STORED == 'yes'\n")
    return "".join(lines), expected


def test_a_file_of_many_reads_gives_each_read_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, expected = _many(600)
    write_tree(tmp_path, {"many.py": text})
    cut: list[bool] = []
    whole, grouped = whole_and_grouped(tmp_path, monkeypatch, cut)
    assert cut and all(cut)
    assert grouped == whole
    assert grouped.errors == ()
    found = sorted(
        (s.name, s.line, s.column, s.default, s.gate.default_on)
        for k in grouped.knobs
        for s in k.sites
    )
    assert found == sorted(expected)
    chunks = split(text_lines(text), chunk_lines=50)
    assert chunks is not None and len(chunks) > 5


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(module_sources() | gate_sources(), min_size=2, max_size=6))
def test_generated_modules_together_give_the_same_result_in_groups(sources: list[str]) -> None:
    import tempfile

    text = "\n\n".join(
        s.replace("PRIMUS_PROP", f"PRIMUS_PROP_{at}") for at, s in enumerate(sources)
    )
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        root = write_tree(Path(folder), {"m.py": text})
        whole, grouped = whole_and_grouped(root, patch)
    assert grouped == whole


# The cut ------------------------------------------------------------------------------


def _texts(text: str, chunk_lines: int = 1) -> list[str] | None:
    chunks = split(text_lines(text), chunk_lines)
    return None if chunks is None else [c.text for c in chunks]


def test_a_cut_is_never_taken_inside_a_string_a_bracket_or_a_block() -> None:
    text = (
        "import os\n"
        'DOC = """\n'
        'A = os.environ.get("IN_STRING")\n'
        '"""\n'
        "CALL = print(\n"
        'B = os.environ.get("IN_BRACKETS"))\n'
        "try:\n"
        '    C = os.environ.get("TRY")\n'
        "except KeyError:\n"
        "    pass\n"
        "else:\n"
        "    pass\n"
        "@decorator\n"
        "def f():\n"
        '    return os.environ.get("F")\n'
        'G = os.environ.get("G"); H = os.environ.get("H")\n'
    )
    lines = text_lines(text)
    context = "".join(lines[0:4])  # the import, and a constant (a string)
    assert _texts(text) == [
        context + "".join(lines[4:6]),
        context + "".join(lines[6:12]),
        context + "".join(lines[12:15]),
        context + lines[15],
    ]


def test_statements_that_share_a_name_stay_together() -> None:
    text = (
        "import os\n"
        "X = os.environ.get('X')\n"
        "Y = os.environ.get('Y')\n"
        "def uses():\n"
        "    return X == '1'\n"
        "class A:\n"
        "    def __init__(self):\n"
        "        self.z = os.getenv('Z')\n"
        "def other(a):\n"
        "    return a.z\n"
    )
    lines = text_lines(text)
    assert _texts(text) == [
        lines[0] + lines[1] + "".join(lines[3:5]),
        lines[0] + lines[2],
        lines[0] + "".join(lines[5:10]),
    ]


def test_a_file_that_does_not_parse_is_not_cut() -> None:
    assert _texts("import os\nX = os.environ.get('X')\nY = (\n") is None
    assert _texts("import os\n") is None
