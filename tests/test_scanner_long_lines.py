"""One long line of many literals is scanned in linear time (row 10 of issue 41).

A 500 KB table beside an environment read took over a minute, growing about n^1.7: the
anchors counted the quotes of the whole line, and encoded it, once per constant, and
mapped each node's byte column to characters by encoding the line again. Now each line
is encoded and mapped once, and a constant's literals are counted in its own text. The
work is held to the length of the lines here (a count, not a clock), and the positions
to what libcst gives.
"""

from __future__ import annotations

import ast
from pathlib import Path

from scanner import scan
from scanner.source.anchors import build_anchors
from tests.conftest import write_tree


class _Counted(str):
    """A line that counts the characters its whole-line methods go over."""

    work = 0

    def count(self, *args: object) -> int:
        _Counted.work += len(self)
        return str.count(self, *args)  # type: ignore[arg-type]

    def encode(self, *args: object, **kwargs: object) -> bytes:
        _Counted.work += len(self)
        return str.encode(self, *args, **kwargs)  # type: ignore[arg-type]

    def isascii(self) -> bool:
        _Counted.work += len(self)
        return str.isascii(self)


def _table(count: int, item: str = '"k{i:05d}"') -> str:
    items = ", ".join(item.format(i=i) for i in range(count))
    return f'import os\nX = os.environ.get("KNOB_A", "1"); T = [{items}]; os.getenv("KNOB_B")\n'


def _work(source: str) -> int:
    lines = [_Counted(line) for line in source.splitlines()]
    _Counted.work = 0
    anchors = build_anchors(ast.parse(source), lines, lambda line: True)
    assert [name for _, _, name in anchors.table["call"]] == ["get", "getenv"]
    return _Counted.work


def test_the_work_on_one_long_line_is_linear_in_its_length() -> None:
    for item in ('"k{i:05d}"', '"é{i:05d}"', "'a' 'b{i}'"):
        source = _table(4_000, item)
        assert _work(source) <= 4 * len(source), item


def test_a_read_after_a_long_table_on_its_line_is_found_where_it_is(tmp_path: Path) -> None:
    source = _table(20_000, '"é{i:05d}"')  # about 200 KB, not ASCII
    write_tree(tmp_path, {"big.py": source})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    sites = sorted((s.name, s.line, s.column) for k in result.knobs for s in k.sites)
    line = source.splitlines()[1]
    assert sites == [
        ("KNOB_A", 2, line.index("os.environ") + 1),
        ("KNOB_B", 2, line.index("os.getenv") + 1),
    ]
    assert result.errors == ()
