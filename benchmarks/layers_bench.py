"""What reading the launcher layers (shell scripts, YAML configs) costs a scan.

    python benchmarks/layers_bench.py PATH [PATH ...] [--repeat N]

For each PATH, in this one process, with a fresh cache folder per setting:
Python files only (``--include '*.py'``) against the default (Python, shell and
YAML), each cold (empty cache) and warm (nothing changed), best of N. Prints the
times, the files and knobs of each layer, and the ratios default/python-only:
on a Python-only tree they stay near 1; on a launcher-heavy tree (Primus) the
warm default scan is what `knobs check` pays on every run.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from scanner import ScanResult, Settings, scan
from scanner.source.files import DEFAULT_INCLUDE


def timed(path: Path, include: tuple[str, ...], cache: Path) -> tuple[float, ScanResult]:
    start = time.perf_counter()
    result = scan([path], Settings(include=include), root=path, cache_dir=cache)
    return time.perf_counter() - start, result


def measure(path: Path, include: tuple[str, ...], repeat: int) -> tuple[float, float, ScanResult]:
    """Best cold and best warm time of ``repeat`` rounds, and the result."""
    colds: list[float] = []
    warms: list[float] = []
    result = ScanResult()
    for _ in range(repeat):
        folder = Path(tempfile.mkdtemp(prefix="knobs-layers-"))
        try:
            cold, result = timed(path, include, folder)
            warm, again = timed(path, include, folder)
            assert again == result, "a warm scan must find what the cold one found"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        colds.append(cold)
        warms.append(warm)
    return min(colds), min(warms), result


def layers(result: ScanResult) -> str:
    counts = Counter(s.language for k in result.knobs for s in k.sites)
    names = {
        language: len(
            {k.name for k in result.knobs if any(s.language == language for s in k.sites)}
        )
        for language in counts
    }
    return ", ".join(
        f"{lang}: {names[lang]} names / {counts[lang]} sites" for lang in sorted(counts)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for path in args.paths:
        py_cold, py_warm, python = measure(path, ("*.py",), args.repeat)
        all_cold, all_warm, every = measure(path, DEFAULT_INCLUDE, args.repeat)
        print(f"{path}:")
        print(
            f"  python only: cold {py_cold:.2f} s, warm {py_warm:.2f} s; "
            f"{python.files_scanned} files; {layers(python)}"
        )
        print(
            f"  all layers:  cold {all_cold:.2f} s, warm {all_warm:.2f} s; "
            f"{every.files_scanned} files; {layers(every)}"
        )
        print(
            f"  ratio all/python: cold {all_cold / py_cold:.2f}, warm {all_warm / py_warm:.2f}; "
            f"{len(every.errors)} errors"
        )


if __name__ == "__main__":
    main()
