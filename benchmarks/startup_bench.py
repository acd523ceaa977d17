"""How long each `knobs` command takes to start, and how much of it is importing.

    python benchmarks/startup_bench.py [--repeat N] [--save FILE] [--baseline FILE]

Copies the bundled example (examples/) into a temporary git repository and runs
each command there in a subprocess: the best wall and user seconds of N runs
after one warm-up run (which fills the check cache and the bytecode cache: the
children write bytecode under the temporary folder even where
PYTHONDONTWRITEBYTECODE is set), then N runs under `python -X importtime` for
the seconds spent importing (the least), the number of modules imported, and
which heavy packages (jsonschema, rich, libcst, yaml, torch) were among them.
Run the revisions to compare one after the other: on a shared machine the figures
move with the load (the module counts do not).

--save writes the figures as JSON; --baseline reads such a file and prints each
figure's ratio to it (after / before), to compare two revisions.
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
import time
from dataclasses import asdict, dataclass
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples"
HEAVY = ("jsonschema", "rich", "libcst", "yaml", "torch")

# label -> the arguments of `knobs`, run in the copy of the example.
COMMANDS: dict[str, tuple[str, ...]] = {
    "--version": ("--version",),
    "rule": ("rule", "KNB001"),
    "check": ("check",),
    "export": ("export", "--profile", "bitwise"),
    "explain": ("explain", "TOY_FUSED_SDPA"),
    "init": ("init", "--output", "started.yaml", "--force", "toymodel"),
    "diff": ("diff", "HEAD"),
    "trace --help": ("trace", "--help"),
    "triage --help": ("triage", "--help"),
}


@dataclass(frozen=True)
class Figures:
    """One command's start-up: wall and user seconds, and what its imports cost."""

    wall: float
    user: float
    imports: float
    modules: int
    heavy: tuple[str, ...]


def project(root: Path) -> Path:
    """A git repository holding a copy of the example, committed."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".knobs"))
    git = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.org",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "example"]):
        subprocess.run(["git", *command], cwd=root, env=git, check=True)
    return root


def knobs(root: Path, environment: dict[str, str], arguments: tuple[str, ...], *python: str) -> str:
    """Run `knobs ARGUMENTS` once in ``root`` (``python``: the interpreter's options) and
    give its standard error; stop the benchmark when it fails."""
    command = [sys.executable, *python, "-m", "knobregistry", *arguments]
    done = subprocess.run(command, cwd=root, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"knobs {' '.join(arguments)} failed:\n{done.stdout}{done.stderr}")
    return done.stderr


def timed(
    root: Path, environment: dict[str, str], arguments: tuple[str, ...]
) -> tuple[float, float]:
    """Wall and user seconds of one run (user: the children's, read before and after)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    start = time.perf_counter()
    knobs(root, environment, arguments)
    wall = time.perf_counter() - start
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def imports(
    root: Path, environment: dict[str, str], arguments: tuple[str, ...]
) -> tuple[float, int, tuple[str, ...]]:
    """Seconds spent importing, modules imported, and the heavy packages among them."""
    report = knobs(root, environment, arguments, "-X", "importtime")
    total = 0
    names = []
    for line in report.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        total += int(own)
        names.append(name.strip())
    heavy = tuple(h for h in HEAVY if any(n == h or n.startswith(h + ".") for n in names))
    return total / 1e6, len(names), heavy


def measure(root: Path, environment: dict[str, str], repeat: int) -> dict[str, Figures]:
    """Every command's figures."""
    figures = {}
    for label, arguments in COMMANDS.items():
        knobs(root, environment, arguments)  # warm-up: bytecode and check cache
        runs = [timed(root, environment, arguments) for _ in range(repeat)]
        wall, user = min(runs)
        seconds, modules, heavy = min(imports(root, environment, arguments) for _ in range(repeat))
        figures[label] = Figures(wall, user, seconds, modules, heavy)
    return figures


def table(figures: dict[str, Figures], baseline: dict[str, Figures] | None) -> str:
    """The figures as aligned rows, with ratios to ``baseline`` when there is one."""
    head = f"{'command':<15} {'wall s':>7} {'user s':>7} {'import s':>8} {'modules':>7}"
    if baseline is not None:
        head += f"  {'wall x':>6} {'import x':>8}"
    rows = [head + "  heavy imports"]
    for label, now in figures.items():
        row = f"{label:<15} {now.wall:7.3f} {now.user:7.3f} {now.imports:8.3f} {now.modules:7d}"
        before = baseline.get(label) if baseline is not None else None
        if baseline is not None:
            if before is None:
                row += f"  {'-':>6} {'-':>8}"
            else:
                row += f"  {now.wall / before.wall:6.2f} {now.imports / before.imports:8.2f}"
        rows.append(f"{row}  {', '.join(now.heavy) or '-'}")
    return "\n".join(rows)


def load(path: Path) -> dict[str, Figures]:
    """Figures saved by --save."""
    saved = json.loads(path.read_text(encoding="utf-8"))
    return {
        label: Figures(f["wall"], f["user"], f["imports"], f["modules"], tuple(f["heavy"]))
        for label, f in saved.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (best is shown)")
    parser.add_argument("--save", type=Path, metavar="FILE", help="write the figures as JSON")
    parser.add_argument(
        "--baseline", type=Path, metavar="FILE", help="print ratios to figures saved by --save"
    )
    args = parser.parse_args()
    baseline = load(args.baseline) if args.baseline is not None else None
    with tempfile.TemporaryDirectory(prefix="knobs-startup-bench-") as folder:
        root = project(Path(folder) / "example")
        environment = {
            key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
        }
        environment["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        environment["KNOBS_CACHE_DIR"] = str(Path(folder) / "cache")
        environment["COLUMNS"] = "100"
        figures = measure(root, environment, args.repeat)
    print(f"python {sys.version.split()[0]}; best of {args.repeat} runs after a warm-up")
    print(table(figures, baseline))
    if args.save is not None:
        text = json.dumps({label: asdict(f) for label, f in figures.items()}, indent=2)
        args.save.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
