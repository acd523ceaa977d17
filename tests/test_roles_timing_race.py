"""A tuning race stopped by an Event the gate sets, in a package another package loads as itself.

The tree is written on disk in the shape of flashinfer-python 0.7.2 (the file each piece was
read from is named above it), scanned, and the role, off value and evidence chain are checked:
an Event of the session set under the gate (``self._stop.set()``), tested by the job that holds
the session (``self.session._stop.is_set()``), whose other side times candidates (here with
``do_bench``; flashinfer's own race times them with CUDA events, which are no evidence alone:
a timer may only report); the job imports the timing module through ``b12x``, a compatibility
package whose ``__init__`` loads ``flashinfer/experimental/b12x`` as itself."""

from __future__ import annotations

from pathlib import Path

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob

# b12x/__init__.py:37-45: the package's submodules are searched in flashinfer/experimental/b12x.
ALIAS = (
    "import importlib.util\n"
    "import sys\n"
    "from pathlib import Path\n\n"
    '_flashinfer = importlib.util.find_spec("flashinfer")\n'
    '_root = Path(_flashinfer.origin).parent / "experimental" / "b12x"\n'
    "_spec = importlib.util.spec_from_file_location(\n"
    '    __name__, _root / "_api.py", submodule_search_locations=[str(_root)]\n'
    ")\n"
    "_module = importlib.util.module_from_spec(_spec)\n"
    "sys.modules[__name__] = _module\n"
    "_spec.loader.exec_module(_module)\n"
)
# flashinfer/experimental/b12x/preparation/_measurement.py:173-205 (_TimedCall: a pair of
# timing events per sample, elapsed_time read back) and :260-307 (prepare_race_steps); here
# each candidate is timed with do_bench (TIMED_BY_EVENTS below is flashinfer's own form).
MEASUREMENT = """\
class _TimedCall:
    def __init__(self, call, samples):
        import triton

        self.call = call
        self.events = tuple(triton.testing.do_bench(call) for _ in range(samples))

    def samples(self):
        return self.events


def prepare_race_steps(calls, samples=3):
    timers = []
    yield
    for call in calls:
        timers.append(_TimedCall(call, samples))
        yield
    return timers
"""
# flashinfer/experimental/b12x/preparation/session.py: the Event at :396-398, the job made
# with the session at :499-522, its tests at :1717 and :2166, the race at :1602-1650 and
# :1773-1788 (the fastest candidate kept), and a pool of the package at :27, :629-636.
SESSION = """\
import os
import threading

from b12x._lib.compile_pool import CompilePool


class PreparationSession:
    def __init__(self, autotune=True):
        self.autotune = autotune
        self._pool = CompilePool()
        self._stop = threading.Event()
        if os.environ.get("B12X_AUTOTUNE", "1") == "0":
            self._stop.set()

    def cancel_tuning(self):
        self._stop.set()

    def _drain(self):
        if self._stop.is_set():
            self._pool.close(terminate=True)

    def begin(self, requests):
        return PreparationJob(self, requests)


class PreparationJob:
    def __init__(self, session, requests):
        self.session = session
        self.requests = requests
        self.autotune = session.autotune

    def _measure(self, calls):
        from b12x.preparation._measurement import prepare_race_steps

        steps = prepare_race_steps(calls)
        while True:
            try:
                next(steps)
            except StopIteration as finished:
                return finished.value
            yield "gpu"

    def _race(self, request):
        if self.session._stop.is_set():
            return None
        latencies = yield from self._measure(request.candidates)
        return min(range(len(latencies)), key=lambda i: latencies[i])

    def _run(self):
        for request in self.requests:
            if not self.session._stop.is_set() and self.autotune:
                request.selection = yield from self._race(request)
            else:
                request.selection = request.default
"""
# flashinfer/experimental/b12x/_lib/compile_pool.py: a pool of compiler processes.
POOL = """\
class CompilePool:
    def close(self, terminate=False):
        self.closed = terminate
"""
TREE = {
    "b12x/__init__.py": ALIAS,
    "flashinfer/__init__.py": "",
    "flashinfer/experimental/__init__.py": "",
    "flashinfer/experimental/b12x/__init__.py": "",
    "flashinfer/experimental/b12x/_api.py": "",
    "flashinfer/experimental/b12x/_lib/__init__.py": "",
    "flashinfer/experimental/b12x/_lib/compile_pool.py": POOL,
    "flashinfer/experimental/b12x/preparation/__init__.py": "",
    "flashinfer/experimental/b12x/preparation/_measurement.py": MEASUREMENT,
    "flashinfer/experimental/b12x/preparation/session.py": SESSION,
}
PREP = "flashinfer/experimental/b12x/preparation"


def test_an_event_the_gate_sets_stops_a_timing_race(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, TREE, "B12X_AUTOTUNE")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        f"unset, it runs the branch of `not self.session._stop.is_set()` at {PREP}/session.py:"
        f"44, which reaches calls PreparationJob._measure ({PREP}/session.py:32) -> calls "
        f"prepare_race_steps ({PREP}/_measurement.py:12) -> calls _TimedCall "
        f"({PREP}/_measurement.py:1) -> calls _TimedCall.__init__ ({PREP}/_measurement.py:2) "
        f"-> triton.testing.do_bench at {PREP}/_measurement.py:6; "
        "B12X_AUTOTUNE='0' leaves that branch, and what runs instead reaches no such kernel",
    )


def test_without_the_package_alias_the_pool_is_code_the_tree_lacks(tmp_path: Path) -> None:
    """The same tree with b12x/__init__.py loading nothing: ``b12x._lib.compile_pool`` is a
    module the tree does not hold, so what '0' runs (the pool closed) is not known."""
    tree = {**TREE, "b12x/__init__.py": '"""A compatibility package."""\n'}
    knob = scanned_knob(tmp_path, tree, "B12X_AUTOTUNE")
    assert knob.role is Role.UNKNOWN


def test_an_event_another_class_binds_too_is_not_followed(tmp_path: Path) -> None:
    """Two classes bind an Event to ``_stop``: ``self.session._stop`` may be either."""
    other = (
        "import threading\n\n\nclass Worker:\n"
        "    def __init__(self):\n        self._stop = threading.Event()\n"
    )
    tree = {**TREE, f"{PREP}/worker.py": other}
    knob = scanned_knob(tmp_path, tree, "B12X_AUTOTUNE")
    assert knob.role is not Role.KERNEL


TIMED_BY_EVENTS = MEASUREMENT.replace(
    "        import triton\n",
    "        import torch\n",
).replace(
    "tuple(triton.testing.do_bench(call) for _ in range(samples))",
    "tuple((torch.cuda.Event(enable_timing=True),) * 2 for _ in range(samples))",
)


def test_cuda_timing_events_alone_are_no_race(tmp_path: Path) -> None:
    """CUDA events that time the GPU may only report a time (Primus's bench and diagnostic
    timers, PRIMUS_V4_DIAG_TIME): no evidence of a tuner without the choice made from them."""
    assert "torch.cuda.Event(enable_timing=True)" in TIMED_BY_EVENTS
    tree = {**TREE, f"{PREP}/_measurement.py": TIMED_BY_EVENTS}
    knob = scanned_knob(tmp_path, tree, "B12X_AUTOTUNE")
    assert knob.role is not Role.KERNEL
