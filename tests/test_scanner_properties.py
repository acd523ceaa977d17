"""The gate verdict agrees with what Python really does, on generated gate code.

Each example is a small module gating on one variable. The test runs it for
every probed value with the variable really set in ``os.environ`` and checks
that the values the scanner says turn the gate off (and on) really do.
"""

from __future__ import annotations

import os

from hypothesis import given, settings

from tests.oracle import judged
from tests.strategies import gate_sources


@settings(max_examples=int(os.environ.get("KNOBS_PROPERTY_EXAMPLES", "150")), deadline=None)
@given(gate_sources())
def test_verdict_matches_python(source: str) -> None:
    """A switch or a value verdict holds against CPython; an unknown one is not checked
    (benchmarks/generated_gates.py reports how many there are)."""
    assert judged(source) in ("switch", "value", "unknown")
