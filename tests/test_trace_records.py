"""The record files of a trace: cut-short lines, counts, the trace's own entries."""

from __future__ import annotations

import json
import re
from pathlib import Path

from knobregistry.trace.model import Level, Seen, TraceSite
from knobregistry.trace.native import SOURCE
from knobregistry.trace.python_hook import (
    FLUSH_EVERY,
    MAX_NAME,
    MAX_PATH,
    MAX_VALUE,
    PAIRS,
    SECRET_ENDINGS,
    SECRET_WORDS,
    VALUES,
    secret,
)
from knobregistry.trace.records import collect


def c_record(
    key: str, state: str, name: bytes, value: bytes, library: bytes, index: int = 0
) -> bytes:
    header = f"R {key} {index} {state} {len(name)} {len(value)} {len(library)}:".encode()
    return header + name + value + library + b"\n"


def test_python_records_merge_and_a_cut_line_is_skipped(tmp_path: Path) -> None:
    first = {"id": 0, "name": "A", "state": "v", "value": "1", "path": "/p/a.py", "line": 3}
    lines = [json.dumps({**first, "stack": [["/p/b.py", 9]]}), json.dumps({"id": 0, "more": 2})]
    (tmp_path / "py-1-aa.jsonl").write_text("\n".join(lines) + "\n" + '{"id": 1, "na')
    (tmp_path / "py-2-bb.jsonl").write_text(json.dumps({**first, "line": 4}) + "\n")
    found = collect(tmp_path)
    assert found.processes == (2, 0)
    [read] = found.reads
    assert (read.name, read.level, read.seen, read.value, read.count) == (
        "A",
        Level.PYTHON,
        Seen.VALUE,
        "1",
        4,
    )
    assert read.sites == (TraceSite("/p/a.py", 3), TraceSite("/p/a.py", 4))
    assert TraceSite("/p/b.py", 9) in read.frames


def test_c_records_values_with_newlines_counts_and_a_cut_record(tmp_path: Path) -> None:
    data = (
        c_record("00000000000000aa", "v", b"MULTI", b"x\ny:z", b"/lib/libx.so")
        + c_record("00000000000000bb", "s", b"MY_KEY", b"", b"/lib/libx.so")
        + b"C 00000000000000aa 0 4\n"
        + c_record("00000000000000cc", "u", b"CUT", b"", b"/lib/libx.so")[:-3]
    )
    (tmp_path / "c-7-1.rec").write_bytes(data)
    reads = {r.name: r for r in collect(tmp_path).reads}
    assert set(reads) == {"MULTI", "MY_KEY"}
    assert (reads["MULTI"].value, reads["MULTI"].count) == ("x\ny:z", 5)
    assert reads["MY_KEY"].seen is Seen.WITHHELD and reads["MY_KEY"].value is None
    assert reads["MULTI"].sites == (TraceSite("/lib/libx.so"),)


def test_the_trace_takes_its_own_entries_out(tmp_path: Path) -> None:
    base = {"id": 0, "state": "v", "path": "/p/a.py", "line": 1}
    lines = [
        {**base, "id": 0, "name": "PYTHONPATH", "value": "/tmp/hook:/mine"},
        {**base, "id": 1, "name": "LD_PRELOAD", "value": "/cache/i.so"},
        {**base, "id": 2, "name": "KNOBS_TRACE_DIR", "value": "/tmp/records"},
    ]
    (tmp_path / "py-1-aa.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    injected = {"PYTHONPATH": ("/tmp/hook", ":"), "LD_PRELOAD": ("/cache/i.so", " ")}
    reads = {r.name: r for r in collect(tmp_path, injected).reads}
    assert set(reads) == {"PYTHONPATH", "LD_PRELOAD"}
    assert reads["PYTHONPATH"].value == "/mine"
    assert reads["LD_PRELOAD"].seen is Seen.UNSET


def c_words(array: str) -> tuple[str, ...]:
    """The strings of the C array ``array`` in interposer.c."""
    source = SOURCE.read_text(encoding="utf-8")
    found = re.search(r"\b" + array + r"\[\] = \{(.*?)\};", source, re.DOTALL)
    assert found is not None
    return tuple(re.findall(r'"([A-Z]+)"', found[1]))


def test_both_levels_hold_the_same_secret_patterns_and_bounds() -> None:
    assert c_words("WORDS") == SECRET_WORDS
    assert c_words("ENDINGS") == SECRET_ENDINGS
    source = SOURCE.read_text(encoding="utf-8")
    for name, value in [
        ("VALUES", VALUES),
        ("MAX_NAME", MAX_NAME),
        ("MAX_VALUE", MAX_VALUE),
        ("MAX_PATH", MAX_PATH),
        ("FLUSH_EVERY", FLUSH_EVERY),
        ("SLOTS", PAIRS),
    ]:
        assert re.search(rf"#define {name} {value}\b", source), name
    assert secret("hf_token") and secret("AWS_SECRET_ACCESS_KEY") and not secret("PRIMUS_HC")
