"""Hostile launchers (issue 26): no input stalls a scan.

Each input took a scan tens of seconds at a few hundred kilobytes: a regular
expression that retried the rest of a value at every start, a walk up the tree
for every read, a search of the whole line for every read. Each test asserts
what the scan finds in such an input, sized so that it takes a fraction of a
second now and many seconds before. benchmarks/hostile_launchers.py measures
how the time grows with the size.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner import ScanResult, scan
from scanner.launcher.yaml_config import interpolations
from tests.conftest import write_tree

# The expression the YAML layer read interpolations with: the reference of what they are.
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-?([^}]*))?\}")


def _scanned(root: Path, files: dict[str, str]) -> ScanResult:
    write_tree(root, files)
    return scan([root], root=root, jobs=1)


def _sites(result: ScanResult) -> list[tuple[str, int, int, str | None]]:
    return [(s.name, s.line, s.column, s.default) for k in result.knobs for s in k.sites]


# Row 5a: 160 KB of unclosed `"${A:` in a YAML value took 40-50 s ----------------------


def test_an_unclosed_interpolation_repeated_in_a_yaml_value_reads_nothing(
    tmp_path: Path,
) -> None:
    result = _scanned(tmp_path, {"conf.yaml": 'key: "' + "${A:" * 20_000 + '"\nnext: ${B:1}\n'})
    assert (_sites(result), result.errors) == ([("B", 2, 7, "1")], ())


def test_reads_not_spelled_as_in_the_value_sit_at_the_scalar_start(tmp_path: Path) -> None:
    # In double quotes, "\t" is a tab in the value: no read is found in the text as it is
    # spelled, and each search for one read the rest of the scalar.
    result = _scanned(tmp_path, {"conf.yaml": 'key: "' + "${A:\\t}" * 16_000 + '"\n'})
    assert set(_sites(result)) == {("A", 1, 6, "\t")}
    assert len(_sites(result)) == 16_000


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="${}:-A_1 \n", max_size=60))
def test_interpolations_are_what_the_expression_finds(value: str) -> None:
    found = [(i.text, i.name, i.default) for i in interpolations(value)]
    assert found == [(m[0], m[1], m[2]) for m in INTERPOLATION.finditer(value)]
