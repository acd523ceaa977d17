"""Requirements: code that refuses to run unless a variable holds given values.

Primus's ``validate_args_on_rocm`` asserts ``os.environ.get(env) == value`` for four
variables in deterministic mode; such a read is neither a switch nor a plain value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import GateKind, scan
from tests.conftest import write_tree

REQUIRED = [
    (
        "assert-equal",
        'import os\nassert os.environ.get("X") == "1", "set X=1"\n',
        ("1",),
    ),
    (
        "if-not-equal-raise",
        'import os\n\ndef check():\n    if os.getenv("X") != "0":\n        raise ValueError("X")\n',
        ("0",),
    ),
    (
        "loop-over-a-table",
        'import os\n\nWANTED = {"X": "1"}\n\ndef check(args):\n'
        "    if args.deterministic_mode:\n"
        "        for env, value in WANTED.items():\n"
        "            assert os.environ.get(env, None) == value, env\n",
        ("1",),
    ),
    (
        "membership",
        'import os\nassert os.environ.get("X", "") in ("ring", "tree")\n',
        ("ring", "tree"),
    ),
]


@pytest.mark.parametrize(
    ("source", "accepted"), [c[1:] for c in REQUIRED], ids=[c[0] for c in REQUIRED]
)
def test_a_raise_guarded_by_the_value_is_a_requirement(
    tmp_path: Path, source: str, accepted: tuple[str, ...]
) -> None:
    write_tree(tmp_path, {"m.py": source})
    (knob,) = scan([tmp_path], root=tmp_path, jobs=1).knobs
    (site,) = knob.sites
    assert (knob.kind, knob.on_value, knob.default_on) == (GateKind.REQUIREMENT, accepted[0], None)
    assert (site.gate.kind, site.gate.on_values[: len(accepted)]) == (
        GateKind.REQUIREMENT,
        accepted,
    )
    assert site.reason is not None and site.reason.startswith("the code raises unless it is")


NOT_REQUIRED = [
    ("any-value", 'import os\nif os.environ.get("X") is None:\n    raise SystemExit("set X")\n'),
    ("non-empty", 'import os\nif not os.environ.get("X"):\n    raise SystemExit("set X")\n'),
    ("prohibition", 'import os\nif os.environ.get("X") == "1":\n    raise ValueError("X=1")\n'),
    ("a-switch", 'import os\nif os.environ.get("X", "1") != "0":\n    fused()\n'),
]


@pytest.mark.parametrize("source", [c[1] for c in NOT_REQUIRED], ids=[c[0] for c in NOT_REQUIRED])
def test_other_raises_are_not_requirements(tmp_path: Path, source: str) -> None:
    write_tree(tmp_path, {"m.py": source})
    (knob,) = scan([tmp_path], root=tmp_path, jobs=1).knobs
    assert knob.kind is not GateKind.REQUIREMENT
