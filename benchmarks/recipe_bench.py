"""The recipe a new user gets on a tree knobregistry has never seen, line by line.

    python benchmarks/recipe_bench.py NAME=PATH [NAME=PATH ...] [--grades FILE]

For each tree: copies it to a temporary folder (the checkout is never written), runs
`knobs init .` and `knobs export --profile bitwise` there as a user would, then prints
every exported line with its role and the evidence (`knobs export --explain`), and the
knobs the profile left as the code has them. Each line is graded against the reviewed
grades of ``benchmarks/recipe_grades.yaml`` (by tree NAME): right (what a bitwise
recipe should set), harmless (changes nothing that matters), wrong (a line a user would
have to delete), or ungraded (new since the last review: read it). The trees graded:

    primus         AMD-AGI/Primus at fd1eeabbad15135e3702094087e96142b4b4eacb
    megatron-core  the megatron-core 0.16.1 wheel, unpacked
    torchtitan     pytorch/torchtitan at b5bcd76c6 (its repository: launchers included)
    megatron-lm    NVIDIA/Megatron-LM at d98e8a64 (its examples/: launchers only)
    vllm           the vllm 0.33.0 wheel, unpacked
    transformers   the transformers 5.25.0 wheel, unpacked
    deepspeed      deepspeed 0.19.8: the wheel `pip wheel --no-deps` builds from its sdist
    maxtext        AI-Hypercomputer/maxtext at e591f30cbbf217ed67ef71263ec0538239f9c3b8

A measurement, not a gate: exits 0, or 2 when something could not run.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
GRADES = ("right", "harmless", "wrong")
_LINE = re.compile(r"export (?P<name>[A-Za-z_][A-Za-z0-9_]*)='(?P<value>(?:[^']|'\\'')*)'$")
# A variable that holds flags (XLA_FLAGS) keeps the flags it holds and gets the recipe's after
# them: `export XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }"'--flag=value ...'`; its value is the
# recipe's flags.
_KEPT = re.compile(
    r'export (?P<name>[A-Za-z_][A-Za-z0-9_]*)="\$\{(?P=name):\+\$(?P=name) \}"'
    r"'(?P<value>(?:[^']|'\\'')*)'$"
)
_UNSET = re.compile(r"unset (?P<name>[A-Za-z_][A-Za-z0-9_]*)$")


class BenchError(Exception):
    """Something the benchmark needs could not run: it exits 2 with this message."""


@dataclass(frozen=True)
class Line:
    """One line of the exported file, with the review's role and evidence."""

    name: str
    value: str | None  # None: the line unsets the variable
    evidence: tuple[str, ...]

    @property
    def text(self) -> str:
        return f"unset {self.name}" if self.value is None else f"{self.name}={self.value}"


def knobs(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`knobs ARGS...` run in ``folder`` by this Python, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "knobregistry", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


@dataclass(frozen=True)
class Implied:
    """A launcher's write made when other variables hold given values (``when``)."""

    name: str
    value: str | None
    when: tuple[tuple[str, str], ...]
    where: str


def implied_writes(folder: Path) -> list[Implied]:
    """The tree's launcher writes made under conditions on other variables (the scan's
    ``writes`` with a ``when``)."""
    scan = knobs(folder, "scan", ".", "--format", "json")
    if scan.returncode not in (0, 1):
        raise BenchError(f"knobs scan failed in {folder}:\n{scan.stderr}")
    writes = json.loads(scan.stdout).get("writes", [])
    return [
        Implied(
            w["name"], w.get("value"), tuple(sorted(w["when"].items())), f"{w['path']}:{w['line']}"
        )
        for w in writes
        if w.get("name") and w.get("when")
    ]


def review(folder: Path) -> tuple[list[Line], list[str], str, str]:
    """`knobs init .` then the bitwise export in ``folder``: the exported lines, the
    knobs left alone, the export's standard error, and init's summary."""
    init = knobs(folder, "init", ".")
    if init.returncode != 0:
        raise BenchError(f"knobs init failed in {folder}:\n{init.stderr}")
    export = knobs(folder, "export", "--profile", "bitwise")
    explained = knobs(folder, "export", "--profile", "bitwise", "--explain")
    if explained.returncode != 0:
        raise BenchError(f"knobs export --explain failed in {folder}:\n{explained.stderr}")
    lines: list[Line] = []
    left: list[str] = []
    in_left = False
    for raw in explained.stdout.splitlines():
        if raw == "Left as the code has them:":
            in_left = True
        elif in_left and raw.startswith("  "):
            left.append(raw.strip())
        elif (found := _LINE.match(raw) or _KEPT.match(raw)) is not None:
            value = found["value"].replace("'\\''", "'")
            lines.append(Line(found["name"], value, ()))
        elif (found := _UNSET.match(raw)) is not None:
            lines.append(Line(found["name"], None, ()))
        elif raw.startswith("  ") and lines:
            last = lines[-1]
            lines[-1] = Line(last.name, last.value, (*last.evidence, raw.strip()))
    stderr = export.stderr
    if export.returncode != 0:
        stderr = f"exit {export.returncode}\n{stderr}"
    summary = next((s for s in init.stdout.splitlines() if s.startswith("Roles proposed")), "")
    return lines, left, stderr, summary


def load_grades(path: Path) -> dict[str, dict[str, dict[str, str]]]:
    """``tree -> variable -> {value, grade, why}`` from the grades file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise BenchError(f"cannot read {path}: {error}") from error
    if not isinstance(data, dict):
        raise BenchError(f"{path}: expected a mapping of trees")
    return data


def grade(
    line: Line, graded: dict[str, dict[str, str]], should: list[Needed] | None = None
) -> tuple[str, str]:
    """The line's grade and why: the reviewed grade of its value, else right when the
    tree's should-have list has it; ungraded otherwise."""
    entry = graded.get(line.name)
    wanted = None if entry is None else entry.get("value")
    if entry is not None and str(wanted) == str(line.value):
        return str(entry.get("grade", "ungraded")), str(entry.get("why", ""))
    needed = next((n for n in should or () if present(n, [line])), None)
    if needed is not None:
        return "right", f"in the should-have list ({needed.kind}, {needed.where})"
    return "ungraded", "not reviewed yet: read the code and add a grade"


@dataclass(frozen=True)
class Needed:
    """A setting a bitwise run of the tree needs, found by reading its code (should/)."""

    name: str
    values: tuple[str | None, ...]  # the value, and any other with the same effect
    kind: str
    where: str


def load_should(folder: Path, tree: str) -> list[Needed] | None:
    """The should-have settings of ``tree`` (``should/TREE.yaml``), or None when it has none."""
    path = folder / f"{tree}.yaml"
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise BenchError(f"cannot read {path}: {error}") from error
    needed = []
    for entry in data.get("should") or []:
        value = entry.get("value")
        also = [str(v) for v in entry.get("also") or []]
        values = (None,) if value is None else (str(value), *also)
        needed.append(
            Needed(
                str(entry["name"]), values, str(entry.get("kind", "")), str(entry.get("where", ""))
            )
        )
    return needed


@dataclass(frozen=True)
class Row:
    """One tree's figures."""

    tree: str
    lines: int
    counts: Counter[str]
    should: int | None
    present: int

    def cells(self) -> list[str]:
        should = "-" if self.should is None else str(self.should)
        share = f"{100 * self.present / self.should:.0f}%" if self.should else "-"
        return [
            self.tree,
            str(self.lines),
            *(str(self.counts[g]) for g in (*GRADES, "ungraded")),
            should,
            str(self.present),
            share,
        ]


def present(needed: Needed, lines: list[Line]) -> bool:
    """Whether the export sets ``needed`` to one of its values."""
    return any(line.name == needed.name and line.value in needed.values for line in lines)


def implied(needed: Needed, lines: list[Line], writes: list[Implied]) -> Implied | None:
    """The launcher write that sets ``needed`` to one of its values whenever the exported
    lines hold (``NCCL_ALGO=Ring`` written when ``PRIMUS_DETERMINISTIC=1``, which the
    recipe sets), or None."""
    exported = {line.name: line.value for line in lines}
    for write in writes:
        if (
            write.name == needed.name
            and write.value in needed.values
            and all(exported.get(name) == value for name, value in write.when)
        ):
            return write
    return None


def run_tree(
    name: str, path: Path, grades: dict[str, dict[str, str]], should: list[Needed] | None
) -> tuple[list[str], Row]:
    """The report of one tree, and its row of the summary."""
    with tempfile.TemporaryDirectory(prefix="recipe-bench-") as scratch:
        copy = Path(scratch) / name
        shutil.copytree(path, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        lines, left, stderr, summary = review(copy)
        writes = implied_writes(copy) if should else []
    out = [f"{name} ({path}): {len(lines)} line{'' if len(lines) == 1 else 's'} exported"]
    out.append(f"  {summary}" if summary else "  (knobs init printed no role summary)")
    out.extend(f"  {s}" for s in stderr.splitlines())
    counts: Counter[str] = Counter()
    for line in lines:
        verdict, why = grade(line, grades, should)
        counts[verdict] += 1
        out.append(f"  [{verdict}] {line.text}")
        out.extend(f"      {e}" for e in line.evidence)
        if why:
            out.append(f"      grade: {why}")
    out.append(f"  left as the code has them: {len(left)}")
    out.extend(f"    {item}" for item in left)
    shown = ", ".join(f"{counts[g]} {g}" for g in (*GRADES, "ungraded"))
    out.append(f"  graded: {shown}")
    found = 0
    if should is not None:
        missing = [n for n in should if not present(n, lines)]
        through = {n.name: w for n in missing if (w := implied(n, lines, writes)) is not None}
        missing = [n for n in missing if n.name not in through]
        found = len(should) - len(missing)
        out.append(
            f"  should-have: {found} of {len(should)} present"
            + (
                f" ({len(through)} set by the tree's launcher under the recipe's lines)"
                if through
                else ""
            )
        )
        out.extend(f"    through the launcher: {name} ({w.where})" for name, w in through.items())
        out.extend(
            f"    missing: {n.name}={n.values[0] if n.values[0] is not None else '(unset)'}"
            f" ({n.kind}, {n.where})"
            for n in missing
        )
    return out, Row(name, len(lines), counts, None if should is None else len(should), found)


HEADERS = ["tree", "lines", *GRADES, "ungraded", "should-have", "present", "share"]


def table(rows: list[Row]) -> list[str]:
    """The summary as a Markdown table."""
    out = ["| " + " | ".join(HEADERS) + " |", "|" + " --- |" * len(HEADERS)]
    out.extend("| " + " | ".join(row.cells()) + " |" for row in rows)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", metavar="NAME=PATH", help="a tree to review")
    parser.add_argument("--grades", type=Path, default=HERE / "recipe_grades.yaml")
    parser.add_argument(
        "--should",
        type=Path,
        default=HERE / "should",
        help="the folder of should-have lists, one TREE.yaml per tree (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        grades = load_grades(args.grades)
        rows = []
        for item in args.trees:
            name, sep, where = item.partition("=")
            path = Path(where)
            if not sep or not path.is_dir():
                raise BenchError(f"{item}: expected NAME=PATH, a folder")
            report, row = run_tree(
                name, path, grades.get(name) or {}, load_should(args.should, name)
            )
            print("\n".join(report), flush=True)
            rows.append(row)
        print("\n" + "\n".join(table(rows)))
    except BenchError as error:
        print(f"recipe_bench: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
