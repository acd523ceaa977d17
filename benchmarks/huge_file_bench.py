"""Time and peak memory of scanning one huge file (issue 18), against a baseline in the same run.

    python benchmarks/huge_file_bench.py [--reads N] [--whole] [--limit-gb G]

Generates two files in a temporary folder: ``module.py``, N module-level gates
(``X17 = os.environ.get("X_17", "1") != "0"``, about 4.4 MB for 10^5), and
``functions.py``, 1.2 N reads in functions of four (about 6.5 MB for 120k). The
names grow in length, so every read's column moves with its line. Each file is
scanned by a fresh ``python`` (``scanner.scan``, one job, no cache), which checks
that every read is found with its exact line, column, default and verdict; the
wall time and the peak resident memory of the largest process (the scan, or the
process it analyses the huge file in) are printed.

Such a file is analysed in groups, and its statements of one shape share one
analysis (``scanner.run.templates``). The baseline is the whole-file path (what
the scanner did before) on files a tenth the size, so that per-read costs compare
without risking the memory the whole-file path takes at full size. ``--whole``
also runs it at full size (about 4 GB and 6 GB for the defaults), each under a
``--limit-gb`` address-space limit (default 6). No run is timed in a test: this
only prints (and exits 1 when a read is wrong).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FUNCTION_READS = 4

# Runs in the child: scan one folder, check every read, print a summary as JSON.
CHILD = """
import json, resource, sys
import scanner.source.split as split
from scanner import scan
folder, whole = sys.argv[1], sys.argv[2] == "whole"
expected = json.loads(open(sys.argv[3]).read())
if whole:
    split.SPLIT_BYTES = split.MANY_READS = 1 << 62
result = scan([folder], root=folder, jobs=1)
found = {
    s.name: [s.line, s.column, s.default, s.gate.default_on]
    for k in result.knobs for s in k.sites
}
wrong = [n for n, where in expected.items() if found.get(n) != where]
usage = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({"knobs": len(result.knobs), "errors": len(result.errors), "wrong": wrong[:3],
                  "extra": len(found) - len(expected),
                  "peak_kb": max(u.ru_maxrss for u in usage)}))
"""


@dataclass(frozen=True)
class Measure:
    label: str
    reads: int
    megabytes: float
    seconds: float
    cpu: float  # user and system seconds of the scan's processes (steadier on a busy machine)
    peak_mb: float
    summary: str


def module_file(reads: int) -> tuple[str, dict[str, list[object]]]:
    """Module-level gates, one a line, and where each read is."""
    lines = ["import os\n", "\n"]
    expected: dict[str, list[object]] = {}
    for at in range(reads):
        lines.append(f'X{at} = os.environ.get("X_{at}", "1") != "0"\n')
        expected[f"X_{at}"] = [len(lines), len(f"X{at} = ") + 1, "1", True]
    return "".join(lines), expected


def functions_file(reads: int) -> tuple[str, dict[str, list[object]]]:
    """Functions of FUNCTION_READS reads each, and where each read is."""
    lines = ["import os\n"]
    expected: dict[str, list[object]] = {}
    for function in range(-(-reads // FUNCTION_READS)):
        lines += ["\n", "\n", f"def f{function}():\n"]
        for inner in range(min(FUNCTION_READS, reads - function * FUNCTION_READS)):
            name = f"F_{function}_{inner}"
            lines.append(f'    v{inner} = os.environ.get("{name}", "0") == "1"\n')
            expected[name] = [len(lines), 10, "0", False]
        lines.append("    return v0\n")
    return "".join(lines), expected


def measure(
    label: str, folder: Path, whole: bool, expected: dict[str, list[object]], limit_gb: float
) -> Measure:
    """Scan ``folder`` in a fresh interpreter; its wall time and peak memory."""
    size = sum(p.stat().st_size for p in folder.iterdir())
    limit = int(limit_gb * 1024**3)
    wanted = folder.with_suffix(".json")
    wanted.write_text(json.dumps(expected), encoding="utf-8")

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(folder),
            "whole" if whole else "groups",
            str(wanted),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        preexec_fn=limited,
        check=False,
    )
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime - cpu
    summary = done.stdout.strip() or f"failed ({done.returncode}): {done.stderr[-300:]}"
    # The scan reports the largest of itself and the process it analysed the file in.
    reported = json.loads(summary).get("peak_kb", 0) if summary.startswith("{") else 0
    peak_mb = reported / 1024 if reported else (peak / 1024 if peak > before else float("nan"))
    return Measure(label, len(expected), size / 1e6, seconds, cpu, peak_mb, summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=100_000, help="reads of module.py")
    parser.add_argument(
        "--whole", action="store_true", help="also the whole-file path at full size"
    )
    parser.add_argument("--limit-gb", type=float, default=6.0, help="address space per run")
    args = parser.parse_args(argv)
    runs: list[tuple[str, int, bool]] = []
    small = max(1, args.reads // 10)
    runs += [("module.py, whole file (baseline)", small, True)]
    runs += [("functions.py, whole file (baseline)", small * 12 // 10, True)]
    runs += [("module.py, in groups", args.reads, False)]
    runs += [("functions.py, in groups", args.reads * 12 // 10, False)]
    if args.whole:
        runs += [("module.py, whole file", args.reads, True)]
        runs += [("functions.py, whole file", args.reads * 12 // 10, True)]
    results: list[Measure] = []
    failed = False
    with tempfile.TemporaryDirectory() as temporary:
        for at, (label, reads, whole) in enumerate(runs):
            folder = Path(temporary, str(at))
            folder.mkdir()
            make = module_file if label.startswith("module") else functions_file
            text, expected = make(reads)
            name = "module.py" if label.startswith("module") else "functions.py"
            (folder / name).write_text(text, encoding="utf-8")
            found = measure(label, folder, whole, expected, args.limit_gb)
            results.append(found)
            print(
                f"{found.label:38} {found.reads:>7} reads {found.megabytes:5.1f} MB "
                f"{found.seconds:7.1f} s {found.cpu:7.1f} s CPU {found.peak_mb:6.0f} MB peak  "
                f"{found.summary}",
                flush=True,
            )
            data = json.loads(found.summary) if found.summary.startswith("{") else None
            if data is None or data["wrong"] or data["errors"] or data["extra"]:
                failed = True
    print("\nper 10^4 reads (wall and CPU seconds):")
    for found in results:
        scale = 1e4 / found.reads
        print(f"  {found.label:38} {found.seconds * scale:6.2f} s {found.cpu * scale:6.2f} s CPU")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
