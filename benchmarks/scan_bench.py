"""How fast `knobs scan` is, against grep and a plain ``ast`` scan, in one run.

    python benchmarks/scan_bench.py PATH [--copies N] [--runs N] [--largest N]
    python benchmarks/scan_bench.py NAME=PATH   # a pinned tree (PINNED below), e.g.
    python benchmarks/scan_bench.py torch       # the installed torch, where no path is needed

Copies PATH to a temporary folder (N times under one folder with ``--copies``),
then measures, each as a subprocess, the wall time and the peak memory of the
whole process tree (every worker included, as proportional set size, so that the
pages forked workers share with the parent count once):

    (a) grep -rlE 'environ|getenv'         the floor: find the files, parse nothing
    (b) benchmarks/ast_reference.py        the reference: stdlib ast on those files
    (c) knobs scan, cold (empty cache)
    (d) knobs scan, warm (nothing changed)
    (e) knobs scan, warm after one file changed (a comment appended to it)
    (f) knobs scan, warm after a read was added to that file (libcst parses it again)

and prints, beside each wall time, the CPU time of the whole process tree (user and
system, workers included), then the ratios c/b, c/(b/N) (the reference run once per core,
an ideal N-way split of it: the scan uses every core, the reference one), the CPU ratio of
c to b, and d/a, e/a, e/d and f/d. On a loaded machine the CPU times say more than the wall
times. It also checks that (b) and (c) find the same literal-name reads, so that speed never
buys a wrong answer: it exits 1 when knobs misses a read the reference finds.

``--runs N`` measures (b) and (c) N times, alternated (the cold scan with an empty cache
each time), and prints every run and the ratio of the medians. ``--largest N`` (3 by
default) then times the N largest Python files of the tree alone (benchmarks/file_time.py,
a process per file): the CPU seconds of the scan's per-file work against ``ast.parse``
plus a walk of the same file, and the process's peak memory.

The trees of issue 43, pinned (PINNED): a NAME=PATH argument prints the pin beside the
figures, so that figures from two machines compare only where the pins match.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The trees the speed figures are taken on (issue 43), and how to get each.
PINNED = {
    "unsloth": "the unsloth 2026.10.9 wheel, unpacked "
    "(pip download --no-deps unsloth==2026.10.9; 1,103 Python files)",
    "sglang": "the sglang 0.5.23 wheel (cp311 manylinux_2_34_x86_64), unpacked: its sglang/ "
    "package and dist-info (pip download --no-deps sglang==0.5.23)",
    "torch": "the installed torch package (site-packages/torch; the version torch reports)",
    "primus": "AMD-AGI/Primus at fd1eeabbad15135e3702094087e96142b4b4eacb (git archive)",
}
# Appended for (f): a new read, so the file's narrowed text changes and it is parsed again.
NEW_READ = """

import os as _scan_bench_os


def _scan_bench_touched():
    return _scan_bench_os.environ.get("SCAN_BENCH_TOUCHED", "1") != "0"
"""


@dataclass(frozen=True)
class Run:
    label: str
    seconds: float
    cpu: float  # user + system seconds of the whole process tree
    peak_mb: float
    stdout: str


def _children() -> dict[int, list[int]]:
    """Every process's children, from the parent each process names (every /proc entry)."""
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path("/proc", entry.name, "stat").read_text(encoding="ascii", errors="replace")
            fields = stat.rsplit(")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def _children_of(pid: int) -> list[int] | None:
    """The children of ``pid`` from its threads' ``children`` files (the kernel keeps them);
    None where the kernel does not."""
    found: list[int] = []
    try:
        for task in os.scandir(f"/proc/{pid}/task"):
            found.extend(int(p) for p in Path(task.path, "children").read_text().split())
    except FileNotFoundError:
        # The process ended (no children), or a thread did, or the kernel keeps no such file
        # (then the caller reads all of /proc, as it does for a thread that ended).
        return None if Path(f"/proc/{pid}").exists() else []
    except OSError:
        return []  # the process ended meanwhile
    return found


def _pss_kb(pid: int) -> int:
    """The process's proportional set size: pages shared with its parent count once."""
    try:
        rollup = Path("/proc", str(pid), "smaps_rollup").read_text(encoding="ascii")
    except OSError:
        return 0
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def process_tree(root: int) -> list[int]:
    """``root`` and its descendants, parents first. Sampled every 50 ms beside the run being
    measured, so cheaply: from the tree's own ``children`` files (reading all of /proc took
    2 ms a sample, 4% of a core taken from the scan), from all of /proc only where a process
    has none."""
    children: dict[int, list[int]] | None = None
    found, pending = [], [root]
    while pending:
        pid = pending.pop(0)
        found.append(pid)
        below = _children_of(pid) if children is None else None
        if below is None:
            children = children if children is not None else _children()
            below = children.get(pid, [])
        pending.extend(sorted(below))
    return found


def _tree_pss_kb(root: int) -> int:
    return sum(_pss_kb(pid) for pid in process_tree(root))


def measure(label: str, command: list[str], cwd: Path) -> Run:
    """Run ``command``; wall time, and the peak memory of its whole process tree (PSS)."""
    peak = 0
    done = threading.Event()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, text=True)

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.05):
            peak = max(peak, _tree_pss_kb(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    done.set()
    sampler.join()
    if process.returncode not in (0, 1):
        raise SystemExit(f"{label}: {' '.join(command)} exited {process.returncode}")
    return Run(label, seconds, cpu, peak / 1024, stdout)


def _cores() -> int:
    """The CPUs this process may run on (the scan's workers by default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _copy(source: Path, copies: int, into: Path) -> Path:
    target = into / "tree"
    if copies == 1:
        shutil.copytree(source, target, symlinks=True)
    else:
        for index in range(copies):
            shutil.copytree(source, target / f"copy{index}", symlinks=True)
    return target


def _python_files(tree: Path) -> tuple[int, int]:
    count = size = 0
    for path in tree.rglob("*.py"):
        count += 1
        size += path.stat().st_size
    return count, size


def compare(reference: dict[str, object], scanned: dict[str, object]) -> tuple[int, int, list[str]]:
    """Literal-name reads of the reference, how many knobs found, and what it missed."""
    found = {
        (site["path"], site["line"], site["column"], knob["name"])
        for knob in scanned["knobs"]  # type: ignore[attr-defined]
        for site in knob["sites"]
        if site["kind"] != "wrapper"
    }
    expected = {
        (path, read["line"], read["column"], read["name"])
        for path, reads in reference["reads"].items()  # type: ignore[attr-defined]
        for read in reads
        if read["name"] is not None
    }
    missed = sorted(f"{p}:{line}:{column} {name}" for p, line, column, name in expected - found)
    return len(expected), len(expected & found), missed


def resolve_tree(given: str) -> tuple[Path, str | None]:
    """The tree to scan and its pin: ``NAME=PATH`` (a pinned tree at PATH), ``torch`` (the
    installed one), or a plain path (no pin)."""
    name, sep, path = given.partition("=")
    if sep and name in PINNED:
        return Path(path), f"{name}: {PINNED[name]}"
    if given == "torch":
        import importlib.metadata
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("torch is not installed here: give its path, torch=PATH")
        version = importlib.metadata.version("torch")
        return Path(spec.submodule_search_locations[0]), f"torch {version}: {PINNED['torch']}"
    if sep:
        raise SystemExit(f"{name!r} is no pinned tree: one of {', '.join(PINNED)}, or a path")
    return Path(given), None


def largest_files(tree: Path, count: int) -> list[Path]:
    """The ``count`` largest Python files of ``tree``, largest first."""
    sized = sorted(((p.stat().st_size, str(p)) for p in tree.rglob("*.py")), reverse=True)
    return [Path(p) for _, p in sized[:count]]


def time_files(files: list[Path], cwd: Path) -> list[dict[str, object]]:
    """benchmarks/file_time.py on each file, a process each (its own peak memory)."""
    rows: list[dict[str, object]] = []
    for path in files:
        command = [sys.executable, str(HERE / "file_time.py"), str(path)]
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            rows.append({"path": str(path), "error": done.stderr.strip().splitlines()[-1:]})
            continue
        rows.append(json.loads(done.stdout))
    return rows


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "path", help="the tree to scan: a path, NAME=PATH for a pinned tree, or torch"
    )
    parser.add_argument("--copies", type=int, default=1, help="copy the tree N times")
    parser.add_argument("--runs", type=int, default=1, help="measure (b) and (c) N times")
    parser.add_argument("--largest", type=int, default=3, help="time the N largest files alone")
    args = parser.parse_args()
    source, pin = resolve_tree(args.path)
    # The console script, as users run it (`python -m` would put the scanned tree's
    # own modules, such as torch/random.py, ahead of the standard library).
    knobs = [str(Path(sys.executable).parent / "knobs"), "scan", "--format", "json"]
    with tempfile.TemporaryDirectory(prefix="scan-bench-") as folder:
        work = Path(folder)
        tree = _copy(source.resolve(), args.copies, work)
        cache = work / "cache"
        count, size = _python_files(tree)
        print(f"tree: {source} x{args.copies}: {count:,} Python files, {size / 1e6:.1f} MB")
        if pin is not None:
            print(f"pinned: {pin}")
        grep = ["grep", "-rlE", "environ|getenv", "--include=*.py", "."]
        reference_scan = [sys.executable, str(HERE / "ast_reference.py"), "."]
        references, colds = [], []
        for number in range(max(1, args.runs)):
            # Every cold run starts from an empty cache; the last one fills the cache the
            # warm runs below read.
            shutil.rmtree(cache, ignore_errors=True)
            suffix = f" #{number + 1}" if args.runs > 1 else ""
            references.append(measure(f"(b) ast reference{suffix}", reference_scan, tree))
            cold = [*knobs, "--cache-dir", str(cache), "."]
            colds.append(measure(f"(c) knobs scan cold{suffix}", cold, tree))
        runs = [
            measure("(a) grep -rlE", grep, tree),
            *references,
            *colds,
            measure("(d) knobs scan warm", [*knobs, "--cache-dir", str(cache), "."], tree),
        ]
        reference = json.loads(references[-1].stdout)
        changed = tree / sorted(reference["reads"])[0]
        with changed.open("a", encoding="utf-8") as f:
            f.write("\n# touched by scan_bench.py\n")
        runs.append(
            measure("(e) warm, one file changed", [*knobs, "--cache-dir", str(cache), "."], tree)
        )
        with changed.open("a", encoding="utf-8") as f:
            f.write(NEW_READ)
        runs.append(
            measure("(f) warm, one read added", [*knobs, "--cache-dir", str(cache), "."], tree)
        )
        files = time_files(largest_files(tree, args.largest), tree) if args.largest > 0 else []
    cores = _cores()
    print(f"{'':<28} {'wall':>10} {'cpu':>10} {'peak':>10}")
    for run in runs:
        print(f"{run.label:<28} {run.seconds:8.2f} s {run.cpu:8.2f} s {run.peak_mb:7.0f} MB")
    a, d, e, f = (run.seconds for run in (runs[0], *runs[-3:]))
    b = _median([run.seconds for run in references])
    c = _median([run.seconds for run in colds])
    b_cpu = _median([run.cpu for run in references])
    c_cpu = _median([run.cpu for run in colds])
    medians = " (medians)" if args.runs > 1 else ""
    print(
        f"ratios{medians}: c/b {c / b:.2f}   c/(b/{cores}) {c / (b / cores):.2f}   "
        f"cpu c/b {c_cpu / b_cpu:.2f}   d/a {d / a:.1f}   e/a {e / a:.1f}   "
        f"e/d {e / d:.2f}   f/d {f / d:.2f}"
    )
    if files:
        print(f"largest files alone (cpu): {'scan':>9} {'ast':>8} {'ratio':>6} {'peak':>8}")
        for row in files:
            shown = str(Path(str(row["path"])).relative_to(tree))
            if "error" in row:
                print(f"  {shown}: failed: {row['error']}")
                continue
            scan_s, ast_s = float(row["scan_s"]), float(row["reference_s"])  # type: ignore[arg-type]
            print(
                f"  {shown} ({int(row['bytes']) / 1e6:.1f} MB)"  # type: ignore[call-overload]
                f"  {scan_s:7.2f} s {ast_s:6.2f} s {scan_s / max(ast_s, 1e-3):5.1f}x"
                f" {row['peak_mb']:>5} MB"
            )
    expected, matched, missed = compare(reference, json.loads(colds[-1].stdout))
    print(f"literal-name reads: reference {expected}, found by knobs scan {matched}")
    if colds[-1].stdout != runs[-3].stdout:
        print("warm output differs from cold output")
        return 1
    for line in missed[:20]:
        print(f"  missed: {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
