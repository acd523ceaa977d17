"""A small tree written to disk and scanned, for the tests of one knob's role and evidence."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scanner import Knob, Polarity, Role, scan
from tests.conftest import write_tree


def scanned_knob(root: Path, files: Mapping[str, str | bytes], name: str) -> Knob:
    """Write ``files`` under ``root``, scan it on one process, and return the knob ``name``."""
    write_tree(root, files)
    knob = scan([root], root=root, jobs=1).knob(name)
    assert knob is not None, f"{name} is not among the knobs scanned"
    return knob


def role_facts(knob: Knob) -> tuple[Role, Polarity, str | None, str | None]:
    """What a role test asserts of a knob: its role, polarity, off value and the evidence."""
    return (knob.role, knob.polarity, knob.off_value, knob.role_reason)
