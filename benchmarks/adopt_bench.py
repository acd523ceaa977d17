"""`knobs init` then `knobs check` on installed libraries nobody here wrote, as they are.

    python benchmarks/adopt_bench.py [MODULE ...]     # default: megatron.core torch

For each module (found with importlib, not imported), in a fresh folder with a fresh
cache ($KNOBS_CACHE_DIR): `knobs init PATH`, then `knobs check` twice (the first scans
again with the cache init left, the second is what a pre-commit hook pays). Prints, per
module, the knobs registered, those whose sites disagree (recorded under `sites`), those
undecided, the names left out, the findings by severity and each step's seconds. Exits 1
when a check does not exit 0: adopting a library must not need editing it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

KNOBS = [sys.executable, "-m", "knobregistry"]


@dataclass(frozen=True, slots=True)
class Adoption:
    module: str
    knobs: int
    sites: int
    undecided: int
    excluded: int
    summary: str  # the check's last line
    init_s: float
    check_s: float
    warm_s: float
    exit_code: int


def module_folder(module: str) -> Path:
    """The folder of an installed package, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"adopt_bench: {module} is not an installed package")
    return Path(next(iter(spec.submodule_search_locations)))


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str, int]:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done.stdout, done.returncode


def adopt(module: str) -> Adoption:
    """Init then check ``module`` in a fresh folder with a fresh cache."""
    folder = module_folder(module)
    with tempfile.TemporaryDirectory(prefix="adopt-") as work:
        root = Path(work)
        env = {**os.environ, "KNOBS_CACHE_DIR": str(root / "cache"), "NO_COLOR": "1"}
        project = root / "project"
        project.mkdir()
        init_s, init_out, init_rc = _timed([*KNOBS, "init", str(folder)], project, env)
        if init_rc != 0:
            raise SystemExit(f"adopt_bench: knobs init {folder} exited {init_rc}")
        check_s, out, code = _timed([*KNOBS, "check"], project, env)
        warm_s, _, _ = _timed([*KNOBS, "check"], project, env)
        loaded = yaml.safe_load((project / "registry.yaml").read_text(encoding="utf-8"))
        entries = loaded.get("knobs") or {}
        excluded = re.search(r"^Excluded (\d+) name", init_out, re.MULTILINE)
        return Adoption(
            module=module,
            knobs=len(entries),
            sites=sum(1 for e in entries.values() if "sites" in e),
            undecided=sum(1 for e in entries.values() if "undecided" in e),
            excluded=int(excluded.group(1)) if excluded else 0,
            summary=out.strip().splitlines()[-1] if out.strip() else "",
            init_s=init_s,
            check_s=check_s,
            warm_s=warm_s,
            exit_code=code,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=["megatron.core", "torch"])
    args = parser.parse_args()
    failed = 0
    for module in args.modules:
        found = adopt(module)
        print(
            f"{found.module}: {found.knobs} knobs registered ({found.sites} with sites that "
            f"disagree, {found.undecided} undecided), names excluded: {found.excluded}; "
            f"init {found.init_s:.1f} s, check {found.check_s:.1f} s, warm check "
            f"{found.warm_s:.1f} s; check exit {found.exit_code}"
        )
        print(f"  {found.summary}")
        failed += found.exit_code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
