"""Differential benchmark: the product's shell parser against mvdan/sh, on real trees.

    python benchmarks/shell_parse.py NAME=PATH [NAME=PATH ...] [--shfmt PATH] [--show N]

Every shell script of each tree (the files a scan reads as shell: ``*.sh``, ``*.bash``
and files whose first line names a shell) is parsed twice: with the parser the launcher
layer stands on (scanner.launcher.shell_syntax.parse_script) and with mvdan/sh, the
parser behind shfmt (``shfmt --to-json``, from the ``shfmt-py`` wheel). From each tree
it takes every parameter expansion that starts with ``$`` (``$X``, ``${X:-d}``, ``$1``,
``${!X}``, ``${#X}``, ...): its name, line and column, and the word it sits in (the
argument, assigned value or operand that holds it, by its start and end). The two sets
are compared and every difference is put under the form that explains it
(tests/shell_forms.py); a form is documented when docs/scanning.md names it.

Prints, per tree and in all: the files, the expansions each parser found, the
disagreements by form (documented or not) and the time each parser took: the product's
parse in this process, and shfmt one process per file (sequential, and --jobs at a time)
plus decoding its JSON. ``--show N`` prints N examples of each form. Exit status 1 when
a disagreement is of no documented form.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scanner.languages import Language
from scanner.launcher.shell_repair import parse_script
from scanner.launcher.shell_syntax import parser
from scanner.source.files import DEFAULT_INCLUDE, SourceFile, iter_files
from tests.shell_diff import (
    Comparison,
    compare,
    mvdan_expansions,
    product_expansions,
    shfmt_json,
    shfmt_path,
)
from tests.shell_forms import REPAIRED, UNEXPLAINED


def shell_files(root: Path) -> list[SourceFile]:
    """The files a default scan of ``root`` reads as shell scripts."""
    found = iter_files([root], root=root, include=DEFAULT_INCLUDE, exclude=())
    return [f for f in found if isinstance(f, SourceFile) and f.language is Language.SHELL]


def run_tree(
    name: str, root: Path, shfmt: str, jobs: int, repaired: bool
) -> tuple[list[Comparison], dict[str, float]]:
    files = shell_files(root)
    datas = [f.path.read_bytes() for f in files]
    timing: dict[str, float] = {}

    start = time.perf_counter()
    for data in datas:
        parse_script(data) if repaired else parser().parse(data)
    timing["product parse"] = time.perf_counter() - start
    ours = [product_expansions(data, repaired=repaired) for data in datas]

    start = time.perf_counter()
    for data in datas:
        shfmt_json(shfmt, data)
    timing["shfmt, sequential"] = time.perf_counter() - start

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        raw = list(pool.map(lambda d: shfmt_json(shfmt, d), datas))
    timing[f"shfmt, {jobs} at a time"] = time.perf_counter() - start

    start = time.perf_counter()
    theirs = [mvdan_expansions(r, data) for r, data in zip(raw, datas, strict=True)]
    timing["decode shfmt's JSON"] = time.perf_counter() - start

    comparisons = [
        compare(f.rel, data, a, b) for f, data, a, b in zip(files, datas, ours, theirs, strict=True)
    ]
    if not repaired:
        # Before the repairs: what the repaired parse agrees on is put under the form the
        # repairs fix, so that the two tables say the same thing of the same expansion.
        comparisons = [
            _as_repaired(c, compare(c.path, data, product_expansions(data), b))
            for c, data, b in zip(comparisons, datas, theirs, strict=True)
        ]
    return comparisons, timing


def _as_repaired(before: Comparison, after: Comparison) -> Comparison:
    left = {(d.ours or d.theirs) for d in after.disagreements}
    return replace(
        before,
        disagreements=tuple(
            d
            if d.form is not UNEXPLAINED or (d.ours or d.theirs) in left
            else replace(d, form=REPAIRED)
            for d in before.disagreements
        ),
    )


def report(name: str, comparisons: list[Comparison], timing: dict[str, float], show: int) -> int:
    """Print one tree's table; return how many disagreements are of no documented form."""
    files = len(comparisons)
    rejected = sum(1 for c in comparisons if c.mvdan_error is not None)
    ours = sum(len(c.ours) for c in comparisons)
    theirs = sum(len(c.theirs) for c in comparisons)
    forms: Counter[tuple[bool, str]] = Counter()
    examples: dict[str, list[str]] = {}
    for comparison in comparisons:
        for found in comparison.disagreements:
            forms[(found.form.documented, found.form.name)] += 1
            examples.setdefault(found.form.name, []).append(found.shown(comparison.path))
    differing = sum(1 for c in comparisons if c.disagreements)
    print(
        f"== {name}: {files} shell files ({rejected} that mvdan/sh rejects), "
        f"{differing} with a disagreement"
    )
    print(f"   expansions: product {ours}, mvdan/sh {theirs}")
    undocumented = 0
    for (documented, form), count in sorted(forms.items(), key=lambda i: (-i[1], i[0][1])):
        mark = "documented" if documented else "UNDOCUMENTED"
        print(f"   {count:6d}  {form}  [{mark}]")
        if not documented:
            undocumented += count
        for line in examples[form][:show]:
            print(f"             {line}")
    if not forms:
        print("        0  disagreements")
    for label, seconds in timing.items():
        print(f"   {label:24s} {seconds:8.3f} s")
    return undocumented


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", metavar="NAME=PATH")
    parser.add_argument("--shfmt", default=None, help="the shfmt binary (default: on PATH)")
    parser.add_argument("--show", type=int, default=0, help="examples printed per form")
    parser.add_argument("--jobs", type=int, default=2, help="shfmt processes at a time")
    parser.add_argument(
        "--unrepaired",
        action="store_true",
        help="the bash grammar's tree as it comes (the product before shell_repair)",
    )
    args = parser.parse_args(argv)
    shfmt = shfmt_path(args.shfmt)
    total: list[Comparison] = []
    times: Counter[str] = Counter()
    undocumented = 0
    for spec in args.trees:
        name, _, path = spec.partition("=")
        comparisons, timing = run_tree(
            name, Path(path or name), shfmt, args.jobs, not args.unrepaired
        )
        undocumented += report(name, comparisons, timing, args.show)
        total.extend(comparisons)
        times.update(timing)
    if len(args.trees) > 1:
        report("all", total, dict(times), 0)
    print(f"undocumented disagreements: {undocumented}")
    return 1 if undocumented else 0


if __name__ == "__main__":
    raise SystemExit(main())
