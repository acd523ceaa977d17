"""Triage on hostile commands and signals: a command that forks and exits, SIGTERM, SIGHUP and
Ctrl-C to triage (every run's process group stopped), a signal after the runs (results kept),
and outputs compared in bounded memory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from knobregistry._io.procfs import alive
from knobregistry.registry import Verdict
from knobregistry.triage import Run, judge, parse_compare, streams
from tests.conftest import REPO, write_tree
from tests.processes import hangup_default

REGISTRY = """\
version: 1
knobs:
  DEMO_FUSED:
    default: "1"
    default_on: true
    triage: untriaged
"""
KNOBS = (sys.executable, "-m", "knobregistry")
HANG_GUARD_S = 120  # a hang fails the test instead of blocking the suite; nothing is timed


def pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.mark.slow
def test_a_command_that_forks_and_exits_leaves_nothing_running(tmp_path: Path) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY})
    log = tmp_path / "children"
    script = f"sleep 300 & echo $! >> {log}; echo loss 2.5"
    done = subprocess.run(
        [*KNOBS, "triage", "-k", "DEMO_FUSED", "--", "sh", "-c", script],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    children = pids(log)
    assert len(children) == 4  # two runs of the baseline, two of the knob
    assert [pid for pid in children if alive(pid)] == []


def _start_and_wait_for_runs(project: Path, log: Path, runs: int) -> subprocess.Popen[str]:
    script = f"sleep 300 & echo $$ $! >> {log}; wait"
    process = subprocess.Popen(
        [*KNOBS, "triage", "-k", "DEMO_FUSED", "-j", "2", "--", "sh", "-c", script],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=hangup_default,  # SIGHUP reaches it under nohup too
    )
    while len(pids(log)) < 2 * runs:  # both runs have started, and each its child
        if process.poll() is not None:
            pytest.fail(f"triage ended early: {process.communicate()}")
        subprocess.run(["sleep", "0.05"], check=True)
    return process


@pytest.mark.parametrize(("name", "status"), [("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130)])
def test_a_signal_to_triage_stops_every_run_and_its_children(
    tmp_path: Path, name: str, status: int
) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY})
    log = tmp_path / "pids"
    process = _start_and_wait_for_runs(project, log, runs=2)
    process.send_signal(getattr(signal, name))
    _, err = process.communicate(timeout=HANG_GUARD_S)
    assert process.returncode == status, err
    assert err.splitlines()[-1] == "knobs triage: interrupted; every run was stopped."
    assert [pid for pid in pids(log) if alive(pid)] == []


SIGNAL_WHILE_PROBING_THE_HOST = """
import os, signal, sys
import knobregistry.commands.triage as command
from knobregistry.cli import main

def run_probe(*args, **kwargs):
    # Ctrl-C (or SIGTERM, SIGHUP) just as the runs are over
    os.kill(os.getpid(), getattr(signal, os.environ["SIGNAL"]))
    raise AssertionError("the signal was not raised here")

command.run_probe = run_probe
main(sys.argv[1:])
"""


@pytest.mark.parametrize(("name", "status"), [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_signal_after_the_runs_still_prints_the_results(
    tmp_path: Path, name: str, status: int
) -> None:
    project = write_tree(tmp_path, {"registry.yaml": REGISTRY, "wrapper.py": ""})
    (project / "wrapper.py").write_text(SIGNAL_WHILE_PROBING_THE_HOST)
    done = subprocess.run(
        [sys.executable, "wrapper.py", "triage", "-k", "DEMO_FUSED", "--record", "--", "echo", "x"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO), "SIGNAL": name},
        preexec_fn=hangup_default,  # SIGHUP reaches it under nohup too
    )
    assert done.returncode == status, done.stderr
    assert "alone      DEMO_FUSED   reproducible      2\n" in done.stdout
    assert done.stderr.splitlines()[-1] == (
        "knobs triage: interrupted after the runs; nothing was recorded."
    )
    assert (project / "registry.yaml").read_text() == REGISTRY


# --- outputs compared as streams -----------------------------------------------------------


def _run(root: Path, index: int, stdout: bytes) -> Run:
    folder = root / f"run-{index}"
    folder.mkdir(parents=True)
    out, err = root / f"run-{index}.stdout", root / f"run-{index}.stderr"
    out.write_bytes(stdout)
    err.write_bytes(b"")
    return Run(index=index, folder=folder, stdout=out, stderr=err, returncode=0)


def test_a_large_output_is_compared_in_bounded_memory(tmp_path: Path) -> None:
    lines = b"".join(b"step %d loss 2.5\n" % i for i in range(1_000_000))  # about 20 MB
    runs = [_run(tmp_path, 1, lines + b"last 1\n"), _run(tmp_path, 2, lines + b"last 2\n")]
    del lines
    tracemalloc.start()
    try:
        verdict = judge(parse_compare("stdout"), runs, None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert verdict == (
        Verdict.BREAKS_BITWISE,
        "run 2 differs from run 1 at line 1000001: 'last 1' != 'last 2'",
    )
    assert peak < 8 * streams.CHUNK  # a few chunks, not the 20 MB output


def test_lines_end_at_every_break_even_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "CHUNK", 4)
    path = tmp_path / "out"
    path.write_bytes(b"abc\r\ndef\rgh\n\nlast")
    texts = [(line.number, line.text) for line in streams.lines(path)]
    assert texts == [(1, "abc"), (2, "def"), (3, "gh"), (4, ""), (5, "last")]


def test_a_long_line_is_kept_as_its_head_and_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "HEAD", 8)
    runs = [_run(tmp_path, 1, b"x" * 100 + b"a\n"), _run(tmp_path, 2, b"x" * 100 + b"b\n")]
    assert judge(parse_compare("stdout"), runs, None)[1] == (
        "run 2 differs from run 1 at line 1: 'xxxxxxxx...' != 'xxxxxxxx...'"
    )


def test_a_regex_over_a_large_output(tmp_path: Path) -> None:
    noise = b"".join(b"took %d ms\n" % i for i in range(200_000))
    runs = [
        _run(tmp_path, 1, noise + b"lm loss 4.0\n" + noise + b"lm loss 3.5\n"),
        _run(tmp_path, 2, noise + b"lm loss 4.0\n" + noise + b"lm loss 3.4\n"),
    ]
    assert judge(parse_compare("regex:lm loss"), runs, None)[1] == (
        "run 2 differs from run 1 at line 400002 of the output: 'lm loss 3.5' != 'lm loss 3.4'"
    )


@pytest.mark.parametrize("chunk", [3, 4, 1 << 20])
@pytest.mark.parametrize(
    ("first", "other", "detail"),
    [
        (b"a\r\nb\r\nc\n", b"a\r\nb\nc\n", "in line endings or the final newline"),
        (b"x\n" * 5 + b"a\rb\n", b"x\n" * 5 + b"a\rc\n", "at line 7: 'b' != 'c'"),
        (b"x\r\n" * 3 + b"y\r\n", b"x\r\n" * 3 + b"y\r\nz", "at line 5: (no line) != 'z'"),
        (b"p\rq\r\nr\n", b"p\rq\r\ns\n", "at line 3: 'r' != 's'"),
    ],
)
def test_the_first_different_line_after_skipping_equal_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int, first: bytes, other: bytes,
    detail: str,
) -> None:  # fmt: skip
    monkeypatch.setattr(streams, "CHUNK", chunk)
    runs = [_run(tmp_path, 1, first), _run(tmp_path, 2, other)]
    assert judge(parse_compare("stdout"), runs, None)[1] == f"run 2 differs from run 1 {detail}"
