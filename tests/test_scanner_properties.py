"""The gate verdict agrees with what Python really does, on generated gate code.

Each example is a small module gating on one variable. The test runs it for
every probed value with the variable really set in ``os.environ`` and checks
that the values the scanner says turn the gate off (and on) really do.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner import GateKind, scan
from scanner.values import CANDIDATES, PAIRS

NAME = "PRIMUS_PROP"
WORDS = ("0", "1", "", "true", "false", "yes", "no", "on", "off", "TRUE", "2")
RAISED = object()


@st.composite
def gate_sources(draw: st.DrawFn) -> str:
    default = draw(st.sampled_from((None, *WORDS)))
    read = draw(st.sampled_from(("os.environ.get", "os.getenv")))
    value = f"{read}({NAME!r})" if default is None else f"{read}({NAME!r}, {default!r})"
    if default is not None:
        for method in draw(
            st.lists(st.sampled_from((".lower()", ".strip()", ".upper()")), max_size=2)
        ):
            value += method
    word = draw(st.sampled_from(WORDS))
    words = tuple(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True)))
    expression = draw(
        st.sampled_from(
            (
                f"{value} == {word!r}",
                f"{value} != {word!r}",
                f"{value} in {words!r}",
                f"{value} not in {words!r}",
                f"bool({value})",
                f"{NAME!r} in os.environ",
                f"{NAME!r} in os.environ and os.environ[{NAME!r}] == {word!r}",
                value,
            )
        )
    )
    if draw(st.booleans()):
        expression = f"not ({expression})"
    form = draw(st.sampled_from(("module", "return", "branch")))
    if form == "module":
        return f"import os\n\nGATE = {expression}\n"
    if form == "return":
        return f"import os\n\n\ndef gate():\n    return {expression}\n"
    return (
        "import os\n\n\ndef gate():\n"
        f"    if {expression}:\n        return 'fused'\n    return 'eager'\n"
    )


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


@settings(max_examples=int(os.environ.get("KNOBS_PROPERTY_EXAMPLES", "150")), deadline=None)
@given(gate_sources())
def test_verdict_matches_python(source: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "gate.py").write_text(source)
        result = scan([folder], root=folder)
    (knob,) = result.knobs
    gate = knob.sites[0].gate
    outcome = {value: really(source, value) for value in CANDIDATES}
    known = {v: o for v, o in outcome.items() if o is not RAISED}
    if gate.kind is GateKind.VALUE:
        assert gate.default_on is None and gate.off_values == () and gate.on_values == ()
        differing_pair = any(
            on in known and off in known and known[on] != known[off] for on, off in PAIRS
        )
        two_valued = len({repr(o) for o in known.values()}) == 2
        assert not (two_valued and differing_pair), source
        return
    on = {repr(known[v]) for v in gate.on_values}
    off = {repr(known[v]) for v in gate.off_values}
    assert len(on) == 1, source
    assert len(off) <= 1, source
    assert on != off, source
    probed = {v for v in known if v is not None}
    assert set(gate.on_values) | set(gate.off_values) == probed, source
    if None in known:
        assert gate.default_on == (repr(known[None]) in on), source
    else:
        assert gate.default_on is None, source
