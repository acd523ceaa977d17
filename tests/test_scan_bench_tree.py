"""The scan benchmark's memory sampler finds the whole process tree of a run, from the
kernel's children files, as the parent links of every process in /proc give it."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys

from tests.conftest import REPO

# Loaded from its file: the benchmarks are scripts, not a package.
_SPEC = importlib.util.spec_from_file_location("scan_bench", REPO / "benchmarks" / "scan_bench.py")
assert _SPEC is not None and _SPEC.loader is not None
scan_bench = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("scan_bench", scan_bench)  # where its dataclasses look themselves up
_SPEC.loader.exec_module(scan_bench)

# A process that starts a child, says its pid, and waits.
PARENT = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(60)\n"
)


def test_the_tree_of_a_run_is_the_run_and_its_descendants() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert scan_bench.process_tree(parent.pid) == [parent.pid, child]
        assert scan_bench._children_of(parent.pid) == [child]
        assert scan_bench._children().get(parent.pid) == [child]  # what every /proc entry says
        assert parent.pid in scan_bench.process_tree(os.getpid())
    finally:
        parent.kill()
        parent.wait()
        if child is not None:
            os.kill(child, signal.SIGKILL)
    assert scan_bench._children_of(parent.pid) == []  # a process that ended has no children
    assert scan_bench.process_tree(parent.pid) == [parent.pid]
