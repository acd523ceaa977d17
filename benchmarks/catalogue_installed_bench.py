"""How long `knobs catalogue --installed` takes to read the installed binaries.

    python benchmarks/catalogue_installed_bench.py [--repeat N]

For each catalogued library installed here (torch, Triton, ...), reads the shared objects
`knobs catalogue --installed` reads and extracts the variable names, timed (CPU seconds,
the best of N): the product's way (each file's `.rodata`, one literal-prefix pattern per
prefix) against a baseline run in the same process, the same patterns over each file's
whole bytes (what `strings | grep` amounts to). Prints both and their ratio.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from knobregistry.catalogue.elf_strings import read_only_data, variable_names
from knobregistry.catalogue.installed import installed_binaries
from knobregistry.catalogue.load import library_records
from knobregistry.catalogue.model import Library


def _best(repeat: int, work: Callable[[], int]) -> tuple[float, int]:
    times, found = [], 0
    for _ in range(repeat):
        start = time.process_time()
        found = work()
        times.append(time.process_time() - start)
    return min(times), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    libraries = list(library_records())
    binaries = installed_binaries(libraries)
    for library in libraries:
        found = binaries.get(library.name, ())
        if not found:
            continue
        paths = [b.path for b in found]
        size = sum(p.stat().st_size for p in paths)

        def rodata(paths: list[Path] = paths, library: Library = library) -> int:
            return sum(len(variable_names(read_only_data(p), library.prefixes)) for p in paths)

        def whole(paths: list[Path] = paths, library: Library = library) -> int:
            return sum(len(variable_names(p.read_bytes(), library.prefixes)) for p in paths)

        product, names = _best(args.repeat, rodata)
        baseline, _ = _best(args.repeat, whole)
        print(
            f"{library.name}: {len(paths)} shared objects, {size / 2**20:.0f} MiB, {names} names; "
            f".rodata {product:.3f} s, whole files {baseline:.3f} s "
            f"(ratio {product / baseline if baseline else 0:.2f})"
        )


if __name__ == "__main__":
    main()
