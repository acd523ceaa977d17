"""One file's analysis time against ``ast``: what ``knobs scan`` spends on it alone.

    python benchmarks/file_time.py FILE [FILE ...]  # prints one JSON object per file

For each file, in this process (the parser and the analysis imported first, so that
neither import is timed): the CPU seconds of the scan's own per-file work (reading,
narrowing, parsing with libcst, judging every read, as a worker does it, cold), and of
``ast.parse`` plus an ``ast.walk`` of the same text, the reference the issue's bound
("no file more than 3x the reference") is measured against; and the peak memory of the
process after each (``ru_maxrss``: it only grows, so the files are best timed largest
first).
"""

from __future__ import annotations

import ast
import gc
import json
import resource
import sys
import time
from pathlib import Path

# As the scan sets it (scanner.run.scan.GC_THRESHOLD): the same collector, the same cost.
GC_THRESHOLD = (200_000, 20, 20)


def reference_seconds(path: Path) -> float:
    """CPU seconds of ``ast.parse`` and a full ``ast.walk`` of the file."""
    start = time.process_time()
    tree = ast.parse(path.read_bytes(), filename=str(path))
    for _ in ast.walk(tree):
        pass
    return time.process_time() - start


def scan_seconds(path: Path) -> tuple[float, int]:
    """CPU seconds of the scan's per-file work on ``path`` (cold, no cache), and the sites
    it found."""
    from scanner.run.readers import process
    from scanner.run.work import FileTask, Options
    from scanner.syntax.index import WrapperIndex

    rel = path.name
    task = FileTask(path=path, rel=rel, module=path.stem, index=WrapperIndex())
    start = time.process_time()
    outcome = process(task, Options())
    return time.process_time() - start, len(outcome.result.sites)


def main() -> int:
    gc.set_threshold(*GC_THRESHOLD)
    import scanner.interpret.analyze
    import scanner.interpret.wrappers  # noqa: F401  (loaded before the clock starts)

    for name in sys.argv[1:]:
        path = Path(name)
        reference = reference_seconds(path)
        seconds, sites = scan_seconds(path)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        row = {
            "path": name,
            "bytes": path.stat().st_size,
            "scan_s": round(seconds, 3),
            "reference_s": round(reference, 3),
            "sites": sites,
            "peak_mb": round(peak),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
