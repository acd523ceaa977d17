"""The scan benchmark runs end to end (on the bundled example, where it takes a second)."""

from __future__ import annotations

import re
from pathlib import Path

from scanner.source.split import MANY_READS
from tests.conftest import REPO, write_tree
from tests.processes import benchmark_lines, run_python

PINNED_PRIMUS = "AMD-AGI/Primus at fd1eeabbad15135e3702094087e96142b4b4eacb (git archive)"

LABELS = [
    "(a) grep -rlE",
    "(b) ast reference",
    "(c) knobs scan cold",
    "(d) knobs scan warm",
    "(e) warm, one file changed",
    "(f) warm, one read added",
]


def test_the_scan_benchmark_measures_every_run_and_finds_every_reference_read() -> None:
    lines = benchmark_lines("scan_bench.py", "examples", "--largest", "0")
    assert len(lines) == 10
    assert re.fullmatch(r"tree: examples x1: \d+ Python files, [\d.]+ MB", lines[0])
    assert lines[1].split() == ["wall", "cpu", "peak"]
    for label, line in zip(LABELS, lines[2:8], strict=True):
        assert re.fullmatch(re.escape(label) + r" +[\d.]+ s +[\d.]+ s +\d+ MB", line), line
    ratios = (
        r"ratios: c/b [\d.]+   c/\(b/\d+\) [\d.]+   cpu c/b [\d.]+   d/a [\d.]+   e/a [\d.]+   "
        r"e/d [\d.]+   f/d [\d.]+"
    )
    assert re.fullmatch(ratios, lines[8]), lines[8]
    reads = r"literal-name reads: reference (\d+), found by knobs scan (\d+)"
    found = re.fullmatch(reads, lines[9])
    assert found is not None and found[1] == found[2] and int(found[1]) > 0


def test_the_scan_benchmark_repeats_the_cold_runs_and_times_the_largest_files() -> None:
    # A pinned tree's name prints its pin; every cold run and reference run is listed.
    lines = benchmark_lines("scan_bench.py", "primus=examples", "--runs", "2", "--largest", "2")
    assert len(lines) == 16
    assert lines[1] == f"pinned: primus: {PINNED_PRIMUS}"
    labels = [line[:28].rstrip() for line in lines[3:11]]
    assert labels == [
        "(a) grep -rlE",
        "(b) ast reference #1",
        "(b) ast reference #2",
        "(c) knobs scan cold #1",
        "(c) knobs scan cold #2",
        "(d) knobs scan warm",
        "(e) warm, one file changed",
        "(f) warm, one read added",
    ]
    assert lines[11].startswith("ratios (medians): c/b "), lines[11]
    assert lines[12].split() == [
        "largest",
        "files",
        "alone",
        "(cpu):",
        "scan",
        "ast",
        "ratio",
        "peak",
    ]
    largest = r"  (\S+) \([\d.]+ MB\) +[\d.]+ s +[\d.]+ s +[\d.]+x +\d+ MB"
    found = [re.fullmatch(largest, line) for line in lines[13:15]]
    assert [m[1] if m else None for m in found] == ["toymodel/layers.py", "train.py"], lines[13:15]
    assert lines[15].startswith("literal-name reads: reference ")


def test_the_scan_benchmark_refuses_a_name_it_has_no_pin_for() -> None:
    done = run_python("benchmarks/scan_bench.py", "nosuchtree=examples")
    assert done.returncode == 1
    assert "'nosuchtree' is no pinned tree: one of unsloth, sglang, torch, primus, or a path" in (
        done.stderr
    )


def test_the_layers_benchmark_reports_each_layer(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/model.py": 'import os\nos.environ.get("X_PY", "1")\n',
            "run.sh": 'echo "${X_SH:-1}"\n',
            "conf.yaml": "a: ${X_YAML:1}\n",
        },
    )
    lines = benchmark_lines("layers_bench.py", tmp_path, "--repeat", "1")
    assert lines[0] == f"{tmp_path}:"
    assert re.fullmatch(
        r"  python only: cold [\d.]+ s, warm [\d.]+ s; 1 files; python: 1 names / 1 sites",
        lines[1],
    )
    assert re.fullmatch(
        r"  all layers:  cold [\d.]+ s, warm [\d.]+ s; 3 files; "
        r"python: 1 names / 1 sites, shell: 1 names / 1 sites, yaml: 1 names / 1 sites",
        lines[2],
    )
    assert re.fullmatch(r"  ratio all/python: cold [\d.]+, warm [\d.]+; 0 errors", lines[3])


def test_the_huge_file_benchmark_finds_every_read_at_its_line_and_column() -> None:
    # 1,100 reads: more than scanner.source.split.MANY_READS, so analysed in groups, and
    # each read checked for its line, column (moved by names of growing length), default
    # and verdict, by the benchmark itself (exit 1 on any that is wrong).
    assert MANY_READS < 1100
    lines = benchmark_lines("huge_file_bench.py", "--reads", "1100")
    rows = [line for line in lines if " reads " in line and "{" in line]
    assert [row.split("  ")[0] for row in rows] == [
        "module.py, whole file (baseline)",
        "functions.py, whole file (baseline)",
        "module.py, in groups",
        "functions.py, in groups",
    ]
    for row, reads in zip(rows, (110, 132, 1100, 1320), strict=True):
        assert f'"knobs": {reads}, "errors": 0, "wrong": [], "extra": 0' in row, row


def test_the_hostile_launchers_benchmark_measures_each_form_and_finds_what_it_should() -> None:
    # Each form at 2 and 8 KB; the benchmark itself checks what each scan found (exit 1 on
    # any that is wrong): the reads it can find, or the nesting error.
    lines = benchmark_lines("hostile_launchers.py", "--sizes", "2,8")
    forms = [
        "plain launcher (baseline)",
        '5a YAML value of unclosed "${A:',
        "5b nested ${D:-${D:-...}}",
        "5c [[ ( ( ... ) ) ]]",
        "5d one line of $V reads",
        "elif chain",
        "case of many items",
        "guards, then writes",
        "X=${X:-1} again and again",
        "function chain, read at calls",
        "env, docker -e, srun --export",
    ]
    runs = [re.escape(f"{form:34}") + f" +{size} KB" for form in forms for size in (2, 8)]
    measured = r" +[\d.]+ s +[\d.]+ us/byte  \d+ reads, \d+ writes, \d+ errors"
    count = 2 * len(forms)
    for pattern, line in zip(runs, lines[:count], strict=True):
        assert re.fullmatch(pattern + measured, line), line
    assert lines[count : count + 2] == [
        "",
        "time per byte, largest size over smallest (near 1: linear), and over the baseline:",
    ]
    for form, line in zip(forms, lines[count + 2 :], strict=True):
        assert re.fullmatch(
            "  " + re.escape(f"{form:34}") + r"    8/2    KB +[\d.]+   baseline x[\d.]+", line
        ), line
    assert re.search(r"5b nested .* 8 KB .* 0 reads, 0 writes, 1 errors\n", "\n".join(lines))


def test_the_checksums_benchmark_prints_each_way_and_its_ratio() -> None:
    lines = benchmark_lines(
        "checksums_overhead.py",
        *("--layers", "1", "--dim", "8", "--seq", "4", "--steps", "2", "--repeat", "1"),
    )
    assert len(lines) == 5
    assert lines[0].startswith("model: 1 blocks, dim 8, 6 modules, 0.00 M parameters; batch 8x4")
    assert re.fullmatch(r"\(a\) unhooked +[\d.]+ s/step", lines[1])
    assert re.fullmatch(r"\(b\) recording every step +[\d.]+ s/step +b/a [\d.]+", lines[2])
    assert re.fullmatch(r"\(c\) after the first steps +[\d.]+ s/step +c/a [\d.]+", lines[3])
    # 6 outputs (4 layers, the block, the Sequential), 6 parameter gradients, grad_output
    # of all 6 modules and grad_input of the 3 whose input needs a gradient (up, act, down)
    assert re.fullmatch(
        r"per recorded step: 21 records, [\d.]+ MB of tensors fingerprinted, [\d.]+ KB written",
        lines[4],
    )


def test_the_gated_code_of_the_example_holds_every_kernel_its_branches_reach() -> None:
    lines = benchmark_lines("gated_cover.py", str(REPO / "examples" / "registry.yaml"))
    assert lines == [
        "TOY_FUSED_LINEAR_CE: 1 unit; 0 of 0 kernels",
        "TOY_FUSED_SDPA: 1 unit; 0 of 0 kernels",
        "TOY_RMSNORM_TRITON: 9 units; 1 of 1 kernel",
        "TOY_ROPE_CACHE: 3 units; 0 of 0 kernels",
        "TOY_ROPE_TRITON: 8 units; 1 of 1 kernel",
        "TOY_SWIGLU_FUSED: 10 units; 2 of 2 kernels",
        "TOY_SWIGLU_TRITON_BWD: 6 units; 1 of 1 kernel",
        "5 of 5 kernels the knobs' branches reach are in their gated code",
    ]
