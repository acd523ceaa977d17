"""A function that returns a container on one path is judged, never an internal error.

flashinfer 0.7.2's cake_lm_head_loss/cake_backend.py returns ``{}`` when its tuning
variable is unset and ``json.loads(raw)`` otherwise; the judge of what a function
returns hashed the outputs and raised ``TypeError: unhashable type: 'dict'``, which
dropped the whole file and the knobs it reads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import scan
from scanner.model import GateKind
from tests.conftest import write_tree

CONTAINERS = ("{}", "[]", '{"a": 1}', "set()", "[1, 2]", "()")

PARSED = """
import json
import os


def tuning():
    raw = os.environ.get("MY_TUNING", "").strip()
    if not raw:
        return {literal}
    return json.loads(raw)
"""

TRUTHS = """
import os


def flag():
    if os.environ.get("MY_FLAG") == "1":
        return True
    if os.environ.get("MY_FLAG") == "0":
        return False
    return {literal}
"""


@pytest.mark.parametrize("literal", CONTAINERS)
@pytest.mark.parametrize(
    ("source", "name", "line", "column"),
    [(PARSED, "MY_TUNING", 6, 11), (TRUTHS, "MY_FLAG", 5, 8)],
)
def test_container_return_is_judged(
    tmp_path: Path, source: str, name: str, line: int, column: int, literal: str
) -> None:
    root = write_tree(tmp_path, {"m.py": source.format(literal=literal)})
    result = scan([root], root=root, jobs=1)
    assert [e.message for e in result.errors] == []
    knob = result.knob(name)
    assert knob is not None
    assert (knob.sites[0].line, knob.sites[0].column) == (line, column)
    assert knob.kind is GateKind.VALUE
