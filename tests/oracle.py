"""What CPython really does with a generated gate, held against the scanner's verdict.

Shared by the property test and ``benchmarks/generated_gates.py``: ``judged`` scans a
gate module, runs it with the variable really set to every probed value, and says
which verdict it checked ("switch", "value") or that the scanner said "unknown";
it raises AssertionError, naming the source, when the verdict is wrong.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scanner import GateKind, scan
from scanner.conventions import PAIRS
from scanner.interpret.judge import CANDIDATES
from tests.strategies import NAME

RAISED = object()


@contextmanager
def environment(value: str | None) -> Iterator[None]:
    saved = os.environ.pop(NAME, None)
    if value is not None:
        os.environ[NAME] = value
    try:
        yield
    finally:
        os.environ.pop(NAME, None)
        if saved is not None:
            os.environ[NAME] = saved


def really(source: str, value: str | None) -> object:
    namespace: dict[str, object] = {}
    with environment(value):
        try:
            exec(compile(source, "<gate>", "exec"), namespace)
            gate = namespace.get("gate")
            return gate() if callable(gate) else namespace["GATE"]
        except Exception:
            return RAISED


def judged(source: str) -> str:
    """For a switch: every on value really gives one outcome, every off value another,
    and the default really gives the on outcome exactly when the scanner says on by
    default. A value must not be a plain two-way switch by the on/off words."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "gate.py").write_text(source)
        result = scan([folder], root=folder)
    (knob,) = result.knobs
    gate = knob.sites[0].gate
    if gate.kind is GateKind.UNKNOWN:
        return "unknown"
    probed = (*CANDIDATES, *gate.on_values, *gate.off_values)
    outcome = {value: really(source, value) for value in dict.fromkeys(probed)}
    known = {v: o for v, o in outcome.items() if o is not RAISED}
    if gate.kind is GateKind.VALUE:
        assert gate.default_on is None and gate.off_values == () and gate.on_values == ()
        differing_pair = any(
            on in known and off in known and known[on] != known[off] for on, off in PAIRS
        )
        two_valued = len({repr(o) for o in known.values()}) == 2
        numeric = "int(" in source
        assert numeric or not (two_valued and differing_pair), source
        return "value"
    on = {repr(known[v]) for v in gate.on_values}
    off = {repr(known[v]) for v in gate.off_values}
    assert len(on) == 1, source
    assert not (on & off), source
    tri_state = gate.default_on is None and None in known  # unset: the code decides
    if not tri_state:
        assert len(off) <= 1, source
        words = {v for v in CANDIDATES if v in known and v is not None}
        assert words <= set(gate.on_values) | set(gate.off_values), source
    assert gate.off_value is None or gate.off_value in gate.off_values, source
    if None in known and gate.default_on is not None:
        assert gate.default_on == (repr(known[None]) in on), source
    elif None not in known:
        assert gate.default_on is None, source
    return "switch"
