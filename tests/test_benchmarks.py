"""The scan benchmark runs end to end (on the bundled example, where it takes a second)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO

LABELS = [
    "(a) grep -rlE",
    "(b) ast reference",
    "(c) knobs scan cold",
    "(d) knobs scan warm",
    "(e) warm, one file changed",
    "(f) warm, one read added",
]


def test_the_scan_benchmark_measures_every_run_and_finds_every_reference_read() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/scan_bench.py", "examples"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 9
    assert re.fullmatch(r"tree: examples x1: \d+ Python files, [\d.]+ MB", lines[0])
    for label, line in zip(LABELS, lines[1:7], strict=True):
        assert re.fullmatch(re.escape(label) + r" +[\d.]+ s +\d+ MB", line), line
    ratios = r"ratios: c/b [\d.]+   d/a [\d.]+   e/a [\d.]+   e/d [\d.]+   f/d [\d.]+"
    assert re.fullmatch(ratios, lines[7])
    reads = r"literal-name reads: reference (\d+), found by knobs scan (\d+)"
    found = re.fullmatch(reads, lines[8])
    assert found is not None and found[1] == found[2] and int(found[1]) > 0
