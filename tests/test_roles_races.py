"""Candidates timed and the fastest kept: a tuner written by hand is a kernel choice; a timer
that only reports is not (scanner.reach.races).

Each tree is written on disk in the shape of the real code (the file and lines each piece was
read from are named above it) and scanned; the gate's role and evidence are checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import role_facts, scanned_knob
from tests.test_roles_timing_race import PREP, TREE

# flashinfer 0.7.2 experimental/b12x/preparation/_measurement.py:173-208 (_TimedCall: a pair
# of CUDA timing events per sample around the call, ``samples()`` reads ``elapsed_time``) and
# :325-416 (measure_race_steps: each round's means; a timer whose best round trails the
# leader's by more than the margin stops being timed, :399-411).
MEASUREMENT = """\
import statistics

ELIMINATION_MARGIN = 1.05


class _TimedCall:
    def __init__(self, call, samples):
        import torch

        self.call = call
        self.events = tuple(
            (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            for _ in range(samples)
        )

    def replay(self):
        for start, end in self.events:
            start.record()
            self.call()
            end.record()

    def samples(self):
        return tuple(start.elapsed_time(end) * 1000.0 for start, end in self.events)


def prepare_race_steps(calls, samples=3):
    timers = []
    yield
    for call in calls:
        timers.append(_TimedCall(call, samples))
        yield
    return timers


def measure_race_steps(prepared, rounds=7, eliminate=False):
    values = [[] for _ in prepared]
    active = list(range(len(prepared)))
    for turn in range(rounds):
        for index in active:
            prepared[index].replay()
            samples = prepared[index].samples()
            values[index].append(statistics.fmean(samples))
            yield
        if eliminate:
            best = [min(series) for series in values]
            leader = min(best[index] for index in active)
            active = [
                index
                for index in active
                if best[index] <= ELIMINATION_MARGIN * leader
            ]
    return tuple(statistics.median(series) for series in values)
"""
# session.py:1602-1650: the job prepares the race, then measures it with elimination.
SESSION = (
    TREE[f"{PREP}/session.py"]
    .replace(
        "        from b12x.preparation._measurement import prepare_race_steps\n",
        "        from b12x.preparation._measurement import (\n"
        "            measure_race_steps,\n"
        "            prepare_race_steps,\n"
        "        )\n",
    )
    .replace(
        '                return finished.value\n            yield "gpu"\n',
        "                timers = finished.value\n                break\n"
        '            yield "gpu"\n'
        "        measuring = measure_race_steps(timers, eliminate=True)\n"
        "        while True:\n"
        "            try:\n"
        "                next(measuring)\n"
        "            except StopIteration as finished:\n"
        "                return finished.value\n"
        '            yield "gpu"\n',
    )
)
B12X = {**TREE, f"{PREP}/_measurement.py": MEASUREMENT, f"{PREP}/session.py": SESSION}


def test_b12x_times_candidates_with_cuda_events_and_drops_the_slow(tmp_path: Path) -> None:
    assert "measure_race_steps(timers, eliminate=True)" in SESSION
    knob = scanned_knob(tmp_path, B12X, "B12X_AUTOTUNE")
    assert role_facts(knob) == (
        Role.KERNEL,
        Polarity.ENABLE,
        "0",
        f"unset, it runs the branch of `not self.session._stop.is_set()` at {PREP}/session.py:"
        f"55, which reaches calls PreparationJob._measure ({PREP}/session.py:32) -> calls "
        f"measure_race_steps ({PREP}/_measurement.py:35) -> candidates timed "
        f"(prepared[index].samples() at {PREP}/_measurement.py:41, which returns "
        f"start.elapsed_time() (CUDA timing events) at {PREP}/_measurement.py:23), the slow "
        f"ones dropped at {PREP}/_measurement.py:47; "
        "B12X_AUTOTUNE='0' leaves that branch, and what runs instead reaches no such kernel",
    )


def test_b12x_without_the_elimination_is_no_race(tmp_path: Path) -> None:
    """The same timers whose means are only returned: nothing picked by them here."""
    kept = MEASUREMENT.replace("if best[index] <= ELIMINATION_MARGIN * leader", "if leader")
    knob = scanned_knob(tmp_path, {**B12X, f"{PREP}/_measurement.py": kept}, "B12X_AUTOTUNE")
    assert knob.role is not Role.KERNEL


# A gate that runs a tuner of pkg/race.py or keeps the first candidate.
GATE = """\
import os

from pkg.race import tune


def pick(configs, run):
    if os.environ.get("PKG_AUTOTUNE", "1") == "1":
        return tune(configs, run)
    return configs[0]
"""
RACES = {
    # sglang srt/distributed/device_communicators/pymscclpp.py:845-860 (_get_time: CUDA events
    # around graph replays, elapsed_time per op) and :933-947 (the faster config kept).
    "kept_by_a_comparison": """\
import torch


def _get_time(run, config):
    start_event = torch.cuda.Event(enable_timing=True)
    end_event = torch.cuda.Event(enable_timing=True)
    start_event.record()
    run(config)
    end_event.record()
    end_event.synchronize()
    elapsed = start_event.elapsed_time(end_event) / 10
    return elapsed


def tune(configs, run):
    best_time = float("inf")
    best_config = None
    for config in configs:
        avg_time = _get_time(run, config)
        if avg_time < best_time:
            best_time = avg_time
            best_config = config
    return best_config
""",
    # gptqmodel nn_modules/qlinear/paroquant_triton.py:152-178 (a mean of perf_counter
    # differences per plan; ``min(timings, key=timings.get)``).
    "picked_by_min_with_a_key": """\
import time


def _benchmark_plan(run, plan):
    start = time.perf_counter()
    for _ in range(10):
        run(plan)
    return (time.perf_counter() - start) / 10


def tune(configs, run):
    timings = {plan: _benchmark_plan(run, plan) for plan in configs}
    best_plan = min(timings, key=timings.get)
    return best_plan
""",
    # flashinfer moe_ep/kernel_src/sm100/cutedsl_megamoe/shim/autotune.py:297-321 (medians of
    # perf_counter differences, ``torch.argmin``, the winner applied).
    "picked_by_argmin": """\
import statistics
import time

import torch


def tune(configs, run):
    scores = []
    for knobs in configs:
        iters = []
        for _ in range(5):
            t0 = time.perf_counter()
            run(knobs)
            iters.append(time.perf_counter() - t0)
        scores.append(statistics.median(iters))
    t = torch.tensor(scores)
    best = int(torch.argmin(t).item())
    return configs[best]
""",
}
NO_RACES = {
    # Primus core/projection/performance_projection/projection.py:3095-3125: CUDA events
    # around each all-reduce, the times sorted, the median and percentiles reported.
    "a_median_reported": """\
import torch


def tune(configs, run):
    times_ms = []
    for config in configs:
        start_event = torch.cuda.Event(enable_timing=True)
        end_event = torch.cuda.Event(enable_timing=True)
        start_event.record()
        run(config)
        end_event.record()
        times_ms.append(start_event.elapsed_time(end_event))
    times_ms.sort()
    median_ms = times_ms[len(times_ms) // 2]
    p10_ms = times_ms[int(len(times_ms) * 0.1)]
    return {"measured_median_ms": median_ms, "measured_p10_ms": p10_ms}
""",
    # vllm distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py:1162-1173: the round
    # trip with the least time kept, and the clock offset it measures (a time, no candidate).
    "a_clock_offset_kept": """\
import time


def tune(configs, run):
    best_rtt = float("inf")
    best_offset = 0.0
    for config in configs:
        start_time = time.perf_counter()
        remote = run(config)
        recv_time = time.perf_counter()
        rtt = recv_time - start_time
        if rtt < best_rtt:
            best_rtt = rtt
            best_offset = remote - (start_time + recv_time) / 2
    return best_offset
""",
    # A time against a limit: a watchdog, no race.
    "a_limit": """\
import time


def tune(configs, run):
    start = time.perf_counter()
    for config in configs:
        run(config)
        if time.perf_counter() - start > 10.0:
            return configs[0]
    return configs[-1]
""",
    # The fastest time printed, the first config kept.
    "the_fastest_printed": """\
import time


def tune(configs, run):
    times = []
    for config in configs:
        t0 = time.perf_counter()
        run(config)
        times.append(time.perf_counter() - t0)
    print(f"fastest: {min(range(len(times)), key=lambda i: times[i])}")
    return configs[0]
""",
}


@pytest.mark.parametrize("race", sorted(RACES))
def test_a_race_of_timed_candidates_is_a_kernel_choice(race: str, tmp_path: Path) -> None:
    tree = {"pkg/__init__.py": "", "pkg/gate.py": GATE, "pkg/race.py": RACES[race]}
    knob = scanned_knob(tmp_path, tree, "PKG_AUTOTUNE")
    assert knob.role is Role.KERNEL, knob.role_reason
    assert knob.role_reason is not None and "candidates timed (" in knob.role_reason


@pytest.mark.parametrize("timer", sorted(NO_RACES))
def test_a_timer_that_picks_nothing_is_no_race(timer: str, tmp_path: Path) -> None:
    tree = {"pkg/__init__.py": "", "pkg/gate.py": GATE, "pkg/race.py": NO_RACES[timer]}
    knob = scanned_knob(tmp_path, tree, "PKG_AUTOTUNE")
    assert knob.role is not Role.KERNEL, knob.role_reason


# Primus backends/megatron/core/transformer/deepseek_v4_attention.py:153-191 (an accumulator
# of per-call times, dumped at exit as median/min/max) and :1160-1190 (the call timed with
# CUDA events under PRIMUS_V4_DIAG_TIME, its time recorded).
DIAG = """\
import atexit
import collections
import os
import statistics

import torch


class _Diag:
    _per_mode = collections.defaultdict(list)

    @classmethod
    def record(cls, *, mode, ms):
        cls._per_mode[mode].append(ms)
        atexit.register(cls.dump)

    @classmethod
    def dump(cls):
        for mode, vs in cls._per_mode.items():
            stable = vs[3:] if len(vs) > 3 else vs
            print(f"{mode} med={statistics.median(stable)} min={min(stable)} max={max(stable)}")


def attention(q, kernel):
    if os.environ.get("PRIMUS_V4_DIAG_TIME", "0") == "1":
        torch.cuda.synchronize()
        ev_s = torch.cuda.Event(enable_timing=True)
        ev_e = torch.cuda.Event(enable_timing=True)
        ev_s.record()
        out = kernel(q)
        ev_e.record()
        torch.cuda.synchronize()
        _Diag.record(mode="dense", ms=ev_s.elapsed_time(ev_e))
        return out
    return kernel(q)
"""


def test_a_diagnostic_timer_is_no_race(tmp_path: Path) -> None:
    tree = {"pkg/__init__.py": "", "pkg/attention.py": DIAG}
    knob = scanned_knob(tmp_path, tree, "PRIMUS_V4_DIAG_TIME")
    assert knob.role is not Role.KERNEL, knob.role_reason
