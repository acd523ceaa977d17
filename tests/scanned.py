"""A small tree written to disk and scanned, for the tests of one knob's role and evidence."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scanner import Knob, scan
from tests.conftest import write_tree


def scanned_knob(root: Path, files: Mapping[str, str | bytes], name: str) -> Knob:
    """Write ``files`` under ``root``, scan it on one process, and return the knob ``name``."""
    write_tree(root, files)
    knob = scan([root], root=root, jobs=1).knob(name)
    assert knob is not None, f"{name} is not among the knobs scanned"
    return knob
