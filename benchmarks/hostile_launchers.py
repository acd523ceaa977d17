"""How the time to scan a hostile launcher grows with its size (issue 26): linear, or not.

    python benchmarks/hostile_launchers.py [--sizes 10,40,160,400] [--limit SECONDS]

Generates each form below at each size (in KB), alone in a temporary folder, and
scans that folder in this process (``scanner.scan``, one job, no cache). Prints
the seconds and microseconds per byte of each run and what the scan found, then,
for each form, the time per byte at the largest size over the time per byte at
the smallest (near 1: linear) and over the baseline's at the largest size. The
baseline is a plain launcher of the same size (tests, exports, a torchrun line).

Forms: the rows of issue 26 (a YAML value of unclosed ``"${A:``, nested
``${D:-${D:-...}}``, a test nested in parentheses, one line of reads) and the
shapes found beside them (an elif chain, a case of many items, guards before
writes, a default assigned again and again), and those of issue 25 (a chain of
functions, each read at its call; long env, docker -e and srun --export lines).
A run that does not find what it should is marked WRONG, and the script exits 1.
Once a form takes more than ``--limit`` seconds at a size, its larger sizes are
skipped (for runs of older code). No test times this.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scanner import ScanResult, scan

TOO_DEEP = "The script nests its statements too deeply to analyse; nothing of it is listed."


@dataclass(frozen=True)
class Form:
    label: str
    name: str  # of the file
    make: Callable[[int], tuple[str, tuple[int, int, int]]]  # bytes -> text, expected


@dataclass(frozen=True)
class Run:
    form: str
    kilobytes: int  # asked for
    size: int  # in bytes, as written
    seconds: float
    found: tuple[int, int, int]  # sites, writes, errors
    expected: tuple[int, int, int]

    @property
    def per_byte(self) -> float:
        return self.seconds / self.size * 1e6


def baseline(size: int) -> tuple[str, tuple[int, int, int]]:
    block = (
        'if [[ "${{X_FUSED_{i}:-1}}" == "1" ]]; then\n'
        "  export NCCL_ALGO_{i}=Ring\n"
        "fi\n"
        'torchrun --nproc "${{NPROC_{i}:-8}}" train.py --lr "${{LR_{i}:-0.1}}"\n'
    )
    blocks = _fill(size, lambda i: block.format(i=i))
    return "".join(blocks), (3 * len(blocks), len(blocks), 0)


def yaml_unclosed(size: int) -> tuple[str, tuple[int, int, int]]:
    return 'key: "' + "${A:" * (size // 4) + '"\n', (0, 0, 0)


def nested_defaults(size: int) -> tuple[str, tuple[int, int, int]]:
    levels = size // 6
    return "echo " + "${D:-" * levels + "x" + "}" * levels + "\n", (0, 0, 1)


def nested_test(size: int) -> tuple[str, tuple[int, int, int]]:
    levels = size // 4
    return "[[ " + "( " * levels + "$C == 1" + " )" * levels + " ]] && echo y\n", (0, 0, 1)


def one_line_reads(size: int) -> tuple[str, tuple[int, int, int]]:
    reads = size // 3
    return "echo" + " $V" * reads + "\n", (reads, 0, 0)


def elif_chain(size: int) -> tuple[str, tuple[int, int, int]]:
    branches = _fill(size, lambda i: f"elif [[ $V == {i} ]]; then export X={i}\n")
    text = "if [[ $V == x ]]; then export X=x\n" + "".join(branches) + "fi\n"
    return text, (len(branches) + 1, len(branches) + 1, 0)


def case_items(size: int) -> tuple[str, tuple[int, int, int]]:
    items = _fill(size, lambda i: f"  v{i}|w{i}*) export X{i}=1 ;;\n")
    return "case $V in\n" + "".join(items) + "esac\n", (1, len(items), 0)


def guards(size: int) -> tuple[str, tuple[int, int, int]]:
    half = _fill(size // 2, lambda i: "[[ $G == 1 ]] || exit 1\n")
    writes = _fill(size - size // 2, lambda i: f"export X{i}=1\n")
    return "".join(half) + "".join(writes), (len(half), len(writes), 0)


def defaults_again(size: int) -> tuple[str, tuple[int, int, int]]:
    lines = _fill(size, lambda i: "X=${X:-1}\n")
    return "".join(lines) + '[[ "$X" == "1" ]] && echo on\n', (len(lines) + 1, 0, 0)


def function_chain(size: int) -> tuple[str, tuple[int, int, int]]:
    """Each function reads a variable and calls the one before it; the last is called."""
    bodies = _fill(size, lambda i: f'f{i}() {{ echo "$A{i}"; f{i - 1}; }}\n')
    return "".join(bodies) + f"f{len(bodies) - 1}\n", (len(bodies), 0, 0)


def command_line_writes(size: int) -> tuple[str, tuple[int, int, int]]:
    """docker run -e, env and srun --export writes, on long command lines."""
    count = max(size // 60, 1)
    docker = "docker run" + "".join(f" -e D{i}=1" for i in range(count)) + " img\n"
    env = "env" + "".join(f" E{i}=1" for i in range(count)) + " cmd\n"
    srun = "srun --export=ALL" + "".join(f",S{i}=1" for i in range(count)) + " cmd\n"
    return docker + env + srun, (0, 3 * count, 0)


def _fill(size: int, unit: Callable[[int], str]) -> list[str]:
    """Units ``unit(0), unit(1), ...`` until they hold ``size`` bytes."""
    units: list[str] = []
    total = 0
    while total < size:
        units.append(unit(len(units)))
        total += len(units[-1].encode())
    return units


FORMS = (
    Form("plain launcher (baseline)", "run.sh", baseline),
    Form('5a YAML value of unclosed "${A:', "conf.yaml", yaml_unclosed),
    Form("5b nested ${D:-${D:-...}}", "run.sh", nested_defaults),
    Form("5c [[ ( ( ... ) ) ]]", "run.sh", nested_test),
    Form("5d one line of $V reads", "run.sh", one_line_reads),
    Form("elif chain", "run.sh", elif_chain),
    Form("case of many items", "run.sh", case_items),
    Form("guards, then writes", "run.sh", guards),
    Form("X=${X:-1} again and again", "run.sh", defaults_again),
    Form("function chain, read at calls", "run.sh", function_chain),
    Form("env, docker -e, srun --export", "run.sh", command_line_writes),
)


def measure(form: Form, kilobytes: int, folder: Path) -> Run:
    """Scan the form at ``kilobytes`` KB, alone in ``folder``."""
    folder.mkdir()
    text, expected = form.make(kilobytes * 1024)
    path = folder / form.name
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    result = scan([folder], root=folder, jobs=1)
    seconds = time.perf_counter() - start
    return Run(form.label, kilobytes, path.stat().st_size, seconds, _found(result), expected)


def _found(result: ScanResult) -> tuple[int, int, int]:
    sites = sum(len(k.sites) for k in result.knobs)
    errors = [e for e in result.errors if e.message == TOO_DEEP]
    return sites, len(result.writes), len(errors) if errors else len(result.errors)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,40,160,400", help="sizes in KB, smallest first")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds before skipping")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    runs: dict[str, list[Run]] = {}
    wrong = False
    with tempfile.TemporaryDirectory() as temporary:
        warm = Path(temporary, "warm")  # the parsers loaded before the first measure
        warm.mkdir()
        (warm / "run.sh").write_text("echo ${X:-1}\n", encoding="utf-8")
        (warm / "conf.yaml").write_text("a: ${Y:1}\n", encoding="utf-8")
        scan([warm], root=warm, jobs=1)
        for form in FORMS:
            for kilobytes in sizes:
                folder = Path(temporary, f"{len(runs)}-{kilobytes}")
                run = measure(form, kilobytes, folder)
                runs.setdefault(form.label, []).append(run)
                sites, writes, errors = run.found
                mark = "" if run.found == run.expected else f"  WRONG, expected {run.expected}"
                wrong = wrong or bool(mark)
                print(
                    f"{form.label:34} {kilobytes:5} KB {run.seconds:8.3f} s "
                    f"{run.per_byte:7.2f} us/byte  {sites} reads, {writes} writes, "
                    f"{errors} errors{mark}",
                    flush=True,
                )
                if run.seconds > args.limit:
                    break
    base = runs[FORMS[0].label][-1]
    print("\ntime per byte, largest size over smallest (near 1: linear), and over the baseline:")
    for label, measured in runs.items():
        first, last = measured[0], measured[-1]
        growth = last.per_byte / first.per_byte if first.per_byte else float("nan")
        same = last.kilobytes == base.kilobytes
        against = last.per_byte / base.per_byte if same else float("nan")
        print(
            f"  {label:34} {last.kilobytes:4}/{first.kilobytes:<4} KB {growth:6.2f}"
            f"   baseline x{against:.2f}"
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
