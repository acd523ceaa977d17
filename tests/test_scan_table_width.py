"""The scan table on a real terminal keeps every column at 80 and 120 columns: long
names and paths fold, headers wrap; names with control characters are escaped."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_tree

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


def _on_a_terminal(root: Path, columns: int) -> str:
    """`knobs scan torch_like` with stdout on a pseudo-terminal COLUMNS wide."""
    main, secondary = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "knobregistry", "scan", "torch_like"],
            cwd=root,
            env={**os.environ, "COLUMNS": str(columns), "TERM": "xterm", "NO_COLOR": "1"},
            stdout=secondary,
            stderr=subprocess.PIPE,
            check=False,
        )
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the other end is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(main)
    assert (done.returncode, done.stderr) == (0, b"")
    text = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    return text


def _columns(lines: list[str]) -> list[str]:
    """The table's columns, each one's lines joined by a space: a column is a run of
    positions not blank in some line (rich separates columns by two blanks or more)."""
    width = max(len(line) for line in lines)
    rows = [line.ljust(width) for line in lines]
    used = [any(row[i] != " " for row in rows) for i in range(width)]
    spans: list[tuple[int, int]] = []
    for i, filled in enumerate(used):
        if filled and (not spans or i - spans[-1][1] > 1):  # one blank: a space in a cell
            spans.append((i, i + 1))
        elif filled:
            spans[-1] = (spans[-1][0], i + 1)
    return [" ".join(row[a:b].strip() for row in rows).strip() for a, b in spans]


@pytest.mark.parametrize("columns", [80, 120])
def test_every_column_is_kept(tmp_path: Path, columns: int) -> None:
    root = write_tree(tmp_path, TREE)
    raw = _on_a_terminal(root, columns)
    shown = ANSI.sub("", raw)
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= columns
    rule = next(i for i, line in enumerate(lines) if line.startswith("─"))
    header = [" ".join(cell.split()) for cell in _columns(lines[:rule])]
    body = [cell.replace(" ", "") for cell in _columns(lines[rule + 1 : lines.index("")])]
    assert header == [
        "knob",
        "default",
        "on by default?",
        "polarity",
        "role",
        "off value",
        "read in",
        "sites",
    ]
    # Every cell is there in full, folded over lines: the long name and the sites too.
    assert body[0] == (
        "TORCHINDUCTOR_CACHE_DIRTORCHINDUCTOR_MAX_AUTOTUNE"
        "TORCHINDUCTOR_VERY_LONG_KNOB_NAME_FOR_FUSED_KERNELS"
        "X\\x1b[31mRED\\nLINE"  # escaped: no colour, no line break from a name
    )
    assert body[1].startswith("'/tmp/a/very/long/default/path/for/the/cache''off''1''1'")
    assert body[-1] == "".join(
        f"torch_like/_inductor/config_with_a_long_module_name.py:{line}" for line in (5, 4, 3, 6)
    )
    assert "\x1b[31m" not in raw
    assert "4 knobs (2 on by default), 0 dynamic reads, 0 errors; 1 file scanned." in shown


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_the_set_by_column_is_kept_whole(tmp_path: Path, columns: int) -> None:
    root = write_tree(
        tmp_path,
        {
            **TREE,
            "torch_like/launch/run_the_inductor_benchmarks.sh": (
                "export TORCHINDUCTOR_MAX_AUTOTUNE=on\n"
                "TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) python -m torch_like\n"
            ),
        },
    )
    shown = ANSI.sub("", _on_a_terminal(root, columns))
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= columns
    rule = next(i for i, line in enumerate(lines) if line.startswith("─"))
    header = [" ".join(cell.split()) for cell in _columns(lines[:rule])]
    body = [cell.replace(" ", "") for cell in _columns(lines[rule + 1 : lines.index("")])]
    assert header[-2:] == ["sites", "set by"]
    where = "torch_like/launch/run_the_inductor_benchmarks.sh"
    assert body[-1] == f"{where}:2computed{where}:1'on'--"
