"""Every command's output at 80 and 120 columns (`COLUMNS`, piped), golden, and two
properties of it: no line is wider than asked, and no knob name is broken across lines.

The fixtures: the bundled examples/ project, and a tree of long names and long paths.
The goldens are in tests/data/widths/, one file per command and width.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from knobregistry._text.columns import Column, Wrap, layout, prose, wrap_text
from knobregistry._text.width import PIPED, output_width
from tests.conftest import GIT_ENV, REPO, run_knobs, write_tree
from tests.processes import run_python

GOLDEN = Path(__file__).parent / "data" / "widths"
WIDTHS = (80, 120)
LONG = "TORCHINDUCTOR_VERY_LONG_KNOB_NAME_FOR_FUSED_KERNELS"
MODULE = "torch_like/_inductor/codegen/config_with_a_long_module_name.py"
TREE = {
    MODULE: f"""
        import os

        A = os.environ.get("{LONG}", "1") != "0"
        B = os.environ.get("TORCHINDUCTOR_MAX_AUTOTUNE", "off") == "on"
        C = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "/tmp/a/very/long/default/path/for/the/cache")
        D = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
        """,
    "registry.yaml": """
        version: 1
        scan:
          paths: [torch_like]
          policy: all
        knobs:
          TORCHINDUCTOR_MAX_AUTOTUNE:
            default: "off"
            default_on: false
            on_value: "on"
            triage: untriaged
            cost: Autotuning picks the fastest kernel for each shape, timed where it runs.
          TORCHINDUCTOR_CACHE_DIR:
            default: "/tmp/a/very/long/default/path/for/the/cache"
            default_on: null
            triage: exempt
            reason: Where compiled kernels are kept; it changes no result.
          CUBLAS_WORKSPACE_CONFIG:
            default_on: null
            triage: exempt
            reason: cuBLAS's workspace; ':4096:8' makes its reductions deterministic.
        """,
}
NAMES = (LONG, "TORCHINDUCTOR_MAX_AUTOTUNE", "TORCHINDUCTOR_CACHE_DIR", "CUBLAS_WORKSPACE_CONFIG")
EXAMPLE_NAMES = tuple(
    sorted(set(re.findall(r"\bTOY_[A-Z_]+\b", (REPO / "examples/registry.yaml").read_text())))
)
# A knob name long enough to be cut, were any column to cut it.
TRACED = f"""
import os

os.environ.get("{LONG}", "1")
os.environ.get("TORCHINDUCTOR_MAX_AUTOTUNE", "off")
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env={**os.environ, **GIT_ENV}, check=True)


def long_tree(root: Path) -> Path:
    """The tree of long names, committed twice: without the long knob, then with it."""
    write_tree(root, TREE)
    module = root / MODULE
    text = module.read_text(encoding="utf-8")
    module.write_text(text.replace(f'A = os.environ.get("{LONG}", "1") != "0"\n', ""))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    module.write_text(text, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "head")
    return root


def _output(case: str, root: Path, columns: int) -> tuple[str, tuple[str, ...]]:
    """The output of one case at ``columns``, and the knob names it may show."""
    env = {"COLUMNS": str(columns)}
    if case == "scan-example":
        return run_knobs("scan", ".", cwd=REPO / "examples", env=env).stdout, EXAMPLE_NAMES
    if case == "explain-example":
        done = run_knobs("explain", "TOY_EMBED_GRAD_ATOMIC", cwd=REPO / "examples", env=env)
        return done.stdout, EXAMPLE_NAMES
    if case == "rule-list":
        return run_knobs("rule", cwd=root, env=env).stdout, ()
    if case == "rule-page":
        return run_knobs("rule", "KNB001", cwd=root, env=env).stdout, ()
    long_tree(root)
    if case == "scan":
        return run_knobs("scan", "torch_like", cwd=root, env=env).stdout, NAMES
    if case == "check":
        return run_knobs("check", cwd=root, env=env).stdout, NAMES
    if case == "diff":
        return run_knobs("diff", "main~1", cwd=root, env=env).stdout, NAMES
    if case == "explain":
        return run_knobs("explain", LONG, cwd=root, env=env).stdout, NAMES
    assert case == "trace"
    (root / "program.py").write_text(TRACED, encoding="utf-8")
    (root / "empty-cache").mkdir()
    env.update(CC="/nonexistent/cc", KNOBS_CACHE_DIR=str(root / "empty-cache"))
    done = run_knobs("trace", "--", sys.executable, "program.py", cwd=root, env=env)
    return done.stderr, NAMES


CASES = (
    *("scan", "scan-example", "check", "diff", "trace", "rule-list", "rule-page"),
    *("explain", "explain-example"),
)
# What may be wider than asked: a `knobs check` report line (`path:line:column: CODE ...`,
# one line per finding, its documented contract) and the entry it prints to paste.
CHECK_LINE = re.compile(r"^\S+:\d+:\d+: KNB\d{3} |^      ")


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("case", CASES)
def test_golden_at_80_and_120_columns(tmp_path: Path, case: str, columns: int) -> None:
    shown, _ = _output(case, tmp_path, columns)
    golden = (GOLDEN / f"{case}-{columns}.txt").read_text(encoding="utf-8")
    assert shown == golden


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("case", CASES)
def test_every_line_fits_and_no_name_is_broken(tmp_path: Path, case: str, columns: int) -> None:
    shown, names = _output(case, tmp_path, columns)
    lines = shown.splitlines()
    assert lines
    wide = [line for line in lines if len(line) > columns]
    if case == "check":
        wide = [line for line in wide if not CHECK_LINE.match(line)]
    assert wide == []
    for name in names:
        # a name cut at any point: its head ends a line and its tail starts the next
        for cut in range(4, len(name) - 3):
            head, tail = name[:cut], name[cut:]
            broken = [
                i
                for i in range(len(lines) - 1)
                if lines[i].rstrip().endswith(head) and lines[i + 1].lstrip().startswith(tail)
            ]
            assert broken == [], (name, cut)
        assert f"{name[:-1]}…" not in shown
    # file:line whole: a line number never starts a line
    assert not [line for line in lines if re.match(r"^\s*\d+\)?$", line)]


def test_a_long_name_stacks_and_no_path_is_cut(tmp_path: Path) -> None:
    narrow, _ = _output("scan", tmp_path / "a", 80)
    middle, _ = _output("scan", tmp_path / "b", 120)
    roomy, _ = _output("scan", tmp_path / "c", 200)
    assert f"\n{LONG}\n  '1' " in narrow  # a line of its own, its row under it
    # At 120 only the name too long for its column does; the others stay in it.
    assert f"\n{LONG}\n      " in middle
    assert "\nTORCHINDUCTOR_MAX_AUTOTUNE  'off' " in middle
    assert f"\n{LONG}  '1' " in roomy  # in its column when the width allows
    # At 80 the module's name breaks after a '_', whole: no character is cut.
    assert "…" not in narrow + middle + roomy
    assert "codegen/config_with_a_\n" in narrow.replace(" ", "")
    assert re.findall(r"\blong_module_name\.py:\d", narrow)


@pytest.mark.parametrize(
    ("setting", "width"),
    [("77", 77), ("", PIPED), ("0", PIPED), ("-5", PIPED), ("wide", PIPED), (" 90 ", 90)],
)
def test_piped_output_takes_columns_or_100(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, setting: str, width: int
) -> None:
    monkeypatch.setenv("COLUMNS", setting)
    with (tmp_path / "out").open("w", encoding="utf-8") as piped:
        assert output_width(piped) == width


def test_a_cli_without_columns_is_100_wide_when_piped(tmp_path: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("COLUMNS", None)
    done = run_python("-m", "knobregistry", "rule", cwd=tmp_path, env=env)
    at_100 = run_knobs("rule", cwd=tmp_path, env={"COLUMNS": "100"}).stdout
    assert (done.returncode, done.stdout) == (0, at_100)
    assert max(len(line) for line in done.stdout.splitlines()) <= 100


@pytest.mark.parametrize(
    ("text", "width", "wrap", "lines"),
    [
        ("torch_like/_inductor/config.py:12 (+3)", 22, Wrap.PATH, ["torch_like/_inductor/", "config.py:12 (+3)"]),  # noqa: E501
        ("torch_like/_inductor/config.py:12", 11, Wrap.PATH, ["torch_like/", "_inductor/", "config.", "py:12"]),  # noqa: E501
        ("ops/_fused_linear_cross_entropy_sm90.py:1302", 16, Wrap.PATH, ["ops/_fused_", "linear_cross_", "entropy_sm90.", "py:1302"]),  # noqa: E501
        ("a/averyveryverylongname.py:3", 8, Wrap.PATH, ["a/", "averyver", "yverylon", "gname.", "py:3"]),  # noqa: E501
        ("on by default?", 8, Wrap.WORDS, ["on by", "default?"]),
        ("determinism", 6, Wrap.WORDS, ["deter…"]),
        (LONG, 10, Wrap.WHOLE, [LONG]),
    ],
)  # fmt: skip
def test_cells_break_at_blanks_and_after_slashes(
    text: str, width: int, wrap: Wrap, lines: list[str]
) -> None:
    assert wrap_text(text, width, wrap) == lines


def test_a_table_that_fits_keeps_one_line_per_row() -> None:
    columns = (Column("knob", Wrap.WHOLE), Column("default"), Column("sites", Wrap.PATH))
    rows = [["CUBLAS_WORKSPACE_CONFIG", "-", "a/b.py:3"], ["X", "'1'", "c.py:10"]]
    assert [line.plain for line in layout(columns, rows, 80, rule=True)] == [
        "knob                     default  sites",
        "──────────────────────────────────────────",
        "CUBLAS_WORKSPACE_CONFIG  -        a/b.py:3",
        "X                        '1'      c.py:10",
    ]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (
            "  pkg/a/very/long/path/to/the/module_name.py:12:5: os.environ.get(name)",
            ["  pkg/a/very/long/path/to/the/", "      module_name.py:12:5:", "      os.environ.get(name)"],  # noqa: E501
        ),
        (f"error: {LONG} is new", ["error:", f"      {LONG}", "      is new"]),
        ("  label      fits as it is", ["  label      fits as it is"]),
        ("  label      a value that goes on", ["  label      a value that goes", "      on"]),
    ],
)  # fmt: skip
def test_sentences_break_at_blanks_and_long_paths_after_slashes(
    text: str, lines: list[str]
) -> None:
    assert prose(text, 30, rest="      ") == lines
