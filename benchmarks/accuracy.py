"""How many of the environment variables real releases read does the scanner find?

    python benchmarks/accuracy.py [--cache DIR] [--package NAME ...] [--fixtures]
                                  [--primus PATH] [--megatron-lm PATH] [--torchtitan PATH]
                                  [--maxtext PATH] [--jobs N]

Downloads the pinned releases (``pip download``, once, into ``--cache``),
scans each package's import folder with ``scanner.scan`` and holds the names
found against ground truth obtained without the scanner:

    triton                a runtime trace of the pinned wheel (accuracy_trace.py)
    vllm                  the keys of ``environment_variables`` in vllm/envs.py (ast),
                          less benchmarks/truth/vllm-exclusions.txt
    transformers,         hand-verified lists, benchmarks/truth/<package>.txt
    deepspeed, megatron-core

and prints each package's recall, with every missed name, where it is read and,
when the scan left a dynamic read there, that read. Then the verdict section:
the scanner's gate verdicts against ``benchmarks/verdicts.yaml``. Then the
launcher verdict section: its verdicts on shell scripts and YAML configs of
Primus (``--primus PATH``, a checkout) and Megatron-LM (``--megatron-lm PATH``,
a folder holding its ``examples/``), each tree scanned whole, against
``benchmarks/launcher_verdicts.yaml``, and the roles it proposes for those
knobs. Then the launch-source section (accuracy_launch_sources.py): the reads and
writes of Slurm files, ``#SBATCH`` directives, Dockerfiles, CI workflows and
``ENV_VARS:`` blocks in Megatron-LM, torchtitan (``--torchtitan PATH``) and maxtext
(``--maxtext PATH``), with recall, precision and value accuracy per layer, against
``benchmarks/launch_sources.yaml``. ``--fixtures`` runs the same on the small
packages of tests/data/bench, with no download.
A measurement, not a gate: exits 0, or 2 when something could not run.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from accuracy_launch_sources import report as launch_report
from accuracy_sources import (
    PACKAGES,
    REPO,
    BenchError,
    Package,
    Truth,
    fetch,
    truth_from_envs,
    truth_from_file,
    truth_from_trace,
)
from accuracy_verdicts import report

from scanner import ScanResult, scan

FIXTURES = REPO / "tests" / "data" / "bench"
CALLED = re.compile(r"(?:\bself\.|\bcls\.|(?<![.\w]))(\w+)\s*\(")  # f(...), self.f(...)


def ground_truth(package: Package, root: Path, truth: Path, cache: Path | None) -> Truth:
    """The package's truth: traced when there is a cache to trace in, else from files."""
    if package.truth == "trace" and cache is not None:
        return truth_from_trace(package, root, cache / f"{root.name}-trace.json")
    if package.truth == "envs":
        envs = root / package.folder / "envs.py"
        return truth_from_envs(envs, root, truth / f"{package.name}-exclusions.txt")
    return truth_from_file(truth / f"{package.name}.txt")


def _one_line(expression: str, width: int = 100) -> str:
    text = " ".join(expression.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def why_missed(location: str | None, result: ScanResult, root: Path) -> str:
    """The scan's dynamic read at ``location``, or in a function called on its line."""
    if location is None:
        return ""
    path, _, number = location.rpartition(":")
    line = int(number)
    here = sorted(
        {_one_line(r.expression) for r in result.dynamic if (r.path, r.line) == (path, line)}
    )
    if here:
        return f"dynamic read there: {', '.join(here)}"
    try:
        source = (root / path).read_text(encoding="utf-8").splitlines()[line - 1]
    except (OSError, IndexError):
        return ""
    called = set(CALLED.findall(source))
    for read in result.dynamic:
        through = called.intersection(read.function.split("."))
        if read.path == path and through:
            return (
                f"through {min(through)}(): dynamic read {_one_line(read.expression)}"
                f" at {read.path}:{read.line}"
            )
    return ""


def recall(found: int, total: int) -> str:
    return f"found {found} of {total} (recall {100 * found / total:.1f}%)" if total else "no truth"


def measure(
    package: Package, version: str, root: Path, truth: Truth, jobs: int | None
) -> tuple[ScanResult, int, list[str]]:
    """Scan the package; its report lines, and how many truth names it found."""
    start = time.perf_counter()
    result = scan([root / package.folder], root=root, jobs=jobs)
    seconds = time.perf_counter() - start
    names = {knob.name for knob in result.knobs}
    missed = sorted(set(truth.names) - names)
    found = len(truth.names) - len(missed)
    lines = [
        f"{package.name} {version}: {recall(found, len(truth.names))}",
        f"  scan: {result.files_scanned} files, {len(result.knobs)} knobs,"
        f" {len(result.dynamic)} dynamic reads, {len(result.errors)} errors, {seconds:.2f} s",
        *(f"  {note}" for note in truth.notes),
    ]
    for name in missed:
        location = truth.names[name]
        where = f" at {location}" if location else ""
        reason = why_missed(location, result, root)
        lines.append(f"  missed: {name}{where}" + (f": {reason}" if reason else ""))
    return result, found, lines


TREES = {  # package: (option, what the folder is), for the trees the verdict sections scan whole
    "primus": ("--primus", "a checkout of AMD-AGI/Primus"),
    "megatron-lm": ("--megatron-lm", "a folder holding NVIDIA/Megatron-LM's examples/"),
    "torchtitan": ("--torchtitan", "a checkout of pytorch/torchtitan"),
    "maxtext": ("--maxtext", "a checkout of AI-Hypercomputer/maxtext"),
}
# The truth names its sites from these folders' parents: without them every site reads missing.
HOLDS = {"megatron-lm": "examples"}


def trees(args: argparse.Namespace) -> dict[str, Path]:
    """The trees given on the command line, by package; each must be a folder."""
    given: dict[str, Path] = {}
    for package, (option, what) in TREES.items():
        path: Path | None = getattr(args, package.replace("-", "_"))
        if path is None:
            continue
        if not path.resolve().is_dir():
            raise BenchError(f"{option} {path}: not a folder ({what})")
        held = HOLDS.get(package)
        if held and not (path / held).is_dir():
            raise BenchError(
                f"{option} {path}: holds no {held}/ ({what}): pass the folder above it"
            )
        given[package] = path.resolve()
    return given


def run(args: argparse.Namespace) -> int:
    """Print every section; raises BenchError when something cannot run."""
    given = trees(args)
    chosen = [p for p in PACKAGES if not args.package or p.name in args.package]
    truth_dir = FIXTURES / "truth" if args.fixtures else REPO / "benchmarks" / "truth"
    cache: Path = args.cache.resolve()
    results: dict[str, ScanResult] = {}
    found = total = 0
    mode = "the fixtures of tests/data/bench" if args.fixtures else "pinned releases"
    print(f"reach: environment variables read, found by the scanner ({mode})")
    for package in chosen:
        if args.fixtures:
            root, version = FIXTURES / package.name, "fixture"
            truth = ground_truth(package, root, truth_dir, None)
        else:
            root, version = fetch(package, cache), package.version
            truth = ground_truth(package, root, truth_dir, cache)
        results[package.name], count, lines = measure(package, version, root, truth, args.jobs)
        found, total = found + count, total + len(truth.names)
        print("\n".join(lines), flush=True)
    print(f"total: {recall(found, total)}")
    skipped = {name: f"pass {option} PATH, {what}" for name, (option, what) in TREES.items()}
    for name, tree in given.items():
        results[name] = scan([tree], root=tree, jobs=args.jobs)
    folder = FIXTURES if args.fixtures else REPO / "benchmarks"
    print()
    print("\n".join(report(folder / "verdicts.yaml", results, skipped)))
    launcher = folder / "launcher_verdicts.yaml"
    print()
    print("\n".join(report(launcher, results, skipped, "launcher verdicts", ("language", "role"))))
    print()
    print("\n".join(launch_report(folder / "launch_sources.yaml", results, given)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [p.name for p in PACKAGES]
    parser.add_argument("--cache", type=Path, default=REPO / ".bench-cache", help="download here")
    parser.add_argument("--package", action="append", choices=names, help="only these packages")
    parser.add_argument("--fixtures", action="store_true", help="tests/data/bench, no download")
    parser.add_argument("--primus", type=Path, help="a checkout of AMD-AGI/Primus, for verdicts")
    parser.add_argument(
        "--megatron-lm", type=Path, help="a folder holding NVIDIA/Megatron-LM's examples/"
    )
    parser.add_argument("--torchtitan", type=Path, help="a checkout of pytorch/torchtitan")
    parser.add_argument("--maxtext", type=Path, help="a checkout of AI-Hypercomputer/maxtext")
    parser.add_argument("--jobs", type=int, help="scanner worker processes (default: all CPUs)")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except BenchError as error:
        print(f"accuracy: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
