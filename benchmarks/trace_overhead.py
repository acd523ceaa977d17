"""What `knobs trace` costs a program that reads a changing variable in a loop.

    python benchmarks/trace_overhead.py [--reads N]

Two programs set BENCH_STEP to the step's number and read it back, N times (default
1,000,000): one with ``os.environ.get`` (the Python level), one with libc's ``getenv``
called through ctypes (the C level; skipped where the interposer cannot be built).
Each runs untraced, then traced as `knobs trace` runs it (the hook on PYTHONPATH, the
interposer in LD_PRELOAD, a record folder of its own), then under the real `knobs
trace` command. Printed per run: seconds, the ratio to untraced, the peak memory of
its processes (ru_maxrss, from wait4) and, traced, the size of the record files and
the seconds `knobs trace` takes to read them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from knobregistry._io.cache import default_cache_dir
from knobregistry.trace.native import native_level
from knobregistry.trace.session import HOOK, traced_environment

REPO = str(Path(HOOK).resolve().parents[2])  # the knobregistry measured, for `knobs trace`

PYTHON_LOOP = """
import os, sys
for step in range(int(sys.argv[1])):
    os.environ["BENCH_STEP"] = str(step)
    os.environ.get("BENCH_STEP")
"""

C_LOOP = """
import ctypes, sys
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
for step in range(int(sys.argv[1])):
    libc.setenv(b"BENCH_STEP", str(step).encode(), 1)
    libc.getenv(b"BENCH_STEP")
"""


# Each run is timed by a small Python process of its own, so that the peak memory of
# the run's processes (ru_maxrss of its children) does not start at this process's
# size: a forked child counts the memory of its parent until it runs its program.
WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
elapsed = time.perf_counter() - start
print(code, elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""

COLLECT = """
import sys, time
from pathlib import Path
from knobregistry.trace.records import collect
start = time.perf_counter()
collect(Path(sys.argv[1]))
Path(sys.argv[2]).write_text(str(time.perf_counter() - start))
"""


def run(command: list[str], env: Mapping[str, str], cwd: Path) -> tuple[float, int]:
    """Seconds ``command`` takes, and the peak memory (bytes) of its processes."""
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    code, elapsed, peak = done.stdout.split()
    if done.returncode != 0 or code != "0":
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr}")
    return float(elapsed), int(peak) * 1024


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def measure(label: str, program: Path, reads: int, c_level: bool) -> None:
    """Print the untraced, traced and `knobs trace` runs of ``program``."""
    command = [sys.executable, str(program), str(reads)]
    cwd = program.parent
    print(f"{label}, {reads:,} reads of a changing value:")
    untraced, untraced_peak = run(command, os.environ, cwd)
    print(f"  untraced      {untraced:7.2f} s  peak {megabytes(untraced_peak)}")
    native = native_level(default_cache_dir())
    with tempfile.TemporaryDirectory(prefix="knobs-trace-bench-") as root:
        hook, records = Path(root, "python"), Path(root, "records")
        hook.mkdir()
        records.mkdir()
        shutil.copyfile(HOOK, hook / "sitecustomize.py")
        env = traced_environment(os.environ, hook, records, native)
        traced, traced_peak = run(command, env, cwd)
        size = sum(path.stat().st_size for path in records.iterdir())
        seconds = Path(root, "seconds")
        reading = [sys.executable, "-c", COLLECT, str(records), str(seconds)]
        _, reading_peak = run(reading, {**os.environ, "PYTHONPATH": REPO}, cwd)
        read_seconds = float(seconds.read_text(encoding="utf-8"))
    print(
        f"  traced        {traced:7.2f} s  peak {megabytes(traced_peak)}  "
        f"ratio {traced / untraced:.1f}  records {size:,} bytes"
    )
    print(f"  reading them  {read_seconds:7.2f} s  peak {megabytes(reading_peak)}")
    knobs = [sys.executable, "-m", "knobregistry", "trace", "--", *command]
    # In the program's folder, where no registry is found: the reads are not reconciled.
    whole, whole_peak = run(knobs, {**os.environ, "PYTHONPATH": REPO}, cwd)
    print(
        f"  knobs trace   {whole:7.2f} s  peak {megabytes(whole_peak)}  "
        f"ratio {whole / untraced:.1f}"
    )
    if c_level and native.library is None:
        print(f"  (the C level was skipped: {native.skipped})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=1_000_000, help="reads per program")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="knobs-trace-bench-") as folder:
        python, native = Path(folder, "python_loop.py"), Path(folder, "c_loop.py")
        python.write_text(PYTHON_LOOP, encoding="utf-8")
        native.write_text(C_LOOP, encoding="utf-8")
        measure("Python level (os.environ.get)", python, args.reads, c_level=False)
        measure("C level (getenv through ctypes)", native, args.reads, c_level=True)


if __name__ == "__main__":
    main()
