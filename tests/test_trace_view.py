"""`knobs trace` shows by default what matters to the project, the profile's differences
first; `--all` lists every read and `--only PATTERN` picks names. A real program, traced
in a subprocess, with the C level off (see test_trace_cli) so the output is golden."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from knobregistry.report.trace import render_table
from knobregistry.trace.model import (
    Level,
    Missing,
    MissKind,
    Read,
    Reconciled,
    Seen,
    Trace,
    TraceSite,
)
from knobregistry.trace.view import default_view, is_system, only_view, project_prefixes
from tests.conftest import REPO, run_knobs, write_tree
from tests.test_trace_cli import BITWISE, GOLDEN_TABLE

MAIN = """\
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(here), d) for d in ("vendor", "tools")]

import helper
import libx

FUSED = os.environ.get("SHOP_FUSED", "1") != "0"
BLOCK = int(os.environ.get("SHOP_BLOCK", "64"))
print(FUSED, BLOCK, libx.threads(), helper.mode())
"""

LIBRARY = """\
import os


def threads():
    os.environ.get("LIBX_CACHE")
    os.environ.get("CUBLAS_WORKSPACE_CONFIG")
    os.environ.get("HOME")
    os.environ.get("PATH")
    os.environ.get("LC_ALL")
    return int(os.environ.get("LIBX_THREADS", "1"))
"""

TOOL = """\
import os


def mode():
    return os.environ.get("SHOP_TOOL_MODE", "fast")
"""

REGISTRY = """\
version: 1
scan:
  paths: [app]
  policy: all
knobs:
  SHOP_FUSED:
    default: "1"
    default_on: true
    off_value: "0"
    triage: breaks-bitwise
  SHOP_BLOCK:
    default: "64"
    default_on: null
    triage: exempt
    reason: A block size.
"""

# A fixed environment: PATH and HOME are shown by --all, so their values must not be the
# test machine's. The C level is off (no compiler, an empty cache).
ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/shop",
    "CC": "/nonexistent/cc",
    "SHOP_FUSED": "1",
    "LIBX_THREADS": "4",
}
C_SKIPPED = (
    "note: the C level was skipped: no C compiler ($CC, cc, gcc or clang on PATH) to build "
    "the getenv interposer; getenv calls from native libraries are not recorded.\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_tree(
        tmp_path / "project",
        {
            "app/main.py": MAIN,
            "vendor/libx.py": LIBRARY,
            "tools/helper.py": TOOL,
            "registry.yaml": REGISTRY + BITWISE,
        },
    )
    (root / ".git").mkdir()
    return root


def trace(project: Path, tmp_path: Path, *options: str) -> tuple[int, str, str]:
    cache = tmp_path / "empty-cache"
    cache.mkdir(exist_ok=True)
    # The goldens are of the content: a width they never reach (tests/test_table_widths.py
    # holds the 80 and 120 columns).
    env = {**ENV, "KNOBS_CACHE_DIR": str(cache), "COLUMNS": "200"}
    command = ("--", sys.executable, "app/main.py")
    done = run_knobs("trace", "--profile", "bitwise", *options, *command, cwd=project, env=env)
    return done.returncode, done.stdout, done.stderr


HEAD = "knobs trace: exit status 0; 9 variables read: 9 in Python (1 process), 0 through getenv (0 processes).\n"  # noqa: E501
PROFILE = """\
Profile bitwise: 1 difference
  SHOP_FUSED: expected '0', found '1' (read by python at app/main.py:10)
"""
STACK = """\
Stack settings the run consulted (`knobs catalogue` has their sources):
  CUBLAS_WORKSPACE_CONFIG  cuBLAS: workspace configuration; deterministic: :4096:8; this run: unset
"""

OPENING = HEAD + C_SKIPPED + PROFILE


def against(missing: int, listed: str = "") -> str:
    """The closing lines, against registry.yaml: ``missing`` variables not in the static
    inventory, each read only by libraries, and ``listed`` says where they are shown."""
    libraries = (
        f"    and {missing} variables read only by Python code outside the scope (libraries): "
        f"{listed}\n"
    )
    return (
        "Against registry.yaml (the static scan of its scope: 2 knobs):\n"
        f"  not in the static inventory: {missing}\n"
        + (libraries if missing else "")
        + "  dynamic reads the run resolved: 0\n"
        "  registered, never read: 0\n"
    )


IN_THE_READS = "in the reads above, and in the JSON trace"
DEFAULT = (
    OPENING
    + """\
VARIABLE                 LEVEL   VALUE  READS  SITE
CUBLAS_WORKSPACE_CONFIG  python  unset  1      vendor/libx.py:6
LIBX_THREADS             python  '4'    1      vendor/libx.py:10
SHOP_BLOCK               python  unset  1      app/main.py:11
SHOP_FUSED               python  '1'    1      app/main.py:10
SHOP_TOOL_MODE           python  unset  1      tools/helper.py:5
4 other variables read, not shown: 3 of the system and interpreter (PATH, HOME, PYTHON*, ...) and 1 unset, read only by libraries or native code and unknown to the registry; --all shows them, --only
  PATTERN picks names.
"""  # noqa: E501
    + STACK
    + against(7, "3 in the reads above, 4 more with --all; all in the JSON trace")
)
EVERYTHING = (
    OPENING
    + """\
VARIABLE                 LEVEL   VALUE            READS  SITE
CUBLAS_WORKSPACE_CONFIG  python  unset            1      vendor/libx.py:6
HOME                     python  '/home/shop'     1      vendor/libx.py:7
LC_ALL                   python  unset            1      vendor/libx.py:9
LIBX_CACHE               python  unset            1      vendor/libx.py:5
LIBX_THREADS             python  '4'              1      vendor/libx.py:10
PATH                     python  '/usr/bin:/bin'  1      vendor/libx.py:8
SHOP_BLOCK               python  unset            1      app/main.py:11
SHOP_FUSED               python  '1'              1      app/main.py:10
SHOP_TOOL_MODE           python  unset            1      tools/helper.py:5
"""
    + STACK
    + against(7, IN_THE_READS)
)
ONLY = (
    OPENING
    + """\
VARIABLE      LEVEL   VALUE            READS  SITE
LIBX_CACHE    python  unset            1      vendor/libx.py:5
LIBX_THREADS  python  '4'              1      vendor/libx.py:10
PATH          python  '/usr/bin:/bin'  1      vendor/libx.py:8
3 of 9 variables read match --only 'LIBX_*', 'PATH'.
"""
    + against(3, IN_THE_READS)
)
NOTHING = OPENING + "0 of 9 variables read match --only 'shop_*'.\n" + against(0)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        # By default what matters to the project, the profile's differences first.
        pytest.param((), DEFAULT, id="default"),
        pytest.param(("--all",), EVERYTHING, id="all-shows-every-read"),
        pytest.param(("--only", "LIBX_*", "--only", "PATH"), ONLY, id="only-picks-by-glob"),
        # Names are case-sensitive: a pattern can match nothing, and says so.
        pytest.param(("--only", "shop_*"), NOTHING, id="only-matching-nothing"),
    ],
)
def test_the_table_shows_the_view_asked_for(
    project: Path, tmp_path: Path, options: tuple[str, ...], expected: str
) -> None:
    assert trace(project, tmp_path, *options) == (1, "True 64 4 fast\n", expected)


def test_json_keeps_every_record_unless_only_is_given(project: Path, tmp_path: Path) -> None:
    code, _, err = trace(project, tmp_path, "--format", "json")
    assert code == 1
    document = json.loads(err)
    assert "only" not in document
    assert [r["name"] for r in document["reads"]] == [
        *("CUBLAS_WORKSPACE_CONFIG", "HOME", "LC_ALL", "LIBX_CACHE", "LIBX_THREADS", "PATH"),
        *("SHOP_BLOCK", "SHOP_FUSED", "SHOP_TOOL_MODE"),
    ]
    out = project / "trace.json"
    code, _, err = trace(project, tmp_path, "-f", "json", "--only", "LIBX_*", "-o", str(out))
    assert code == 1
    assert out.read_text(encoding="utf-8") == err
    document = json.loads(err)
    assert document["only"] == ["LIBX_*"]
    assert [r["name"] for r in document["reads"]] == ["LIBX_CACHE", "LIBX_THREADS"]
    assert [m["name"] for m in document["not_in_inventory"]] == ["LIBX_CACHE", "LIBX_THREADS"]
    assert document["catalogued"] == []
    # The profile's differences decide the exit status: --only never hides them.
    assert [d["name"] for d in document["profile_differences"]] == ["SHOP_FUSED"]


@pytest.mark.parametrize(
    ("names", "prefixes"),
    [
        ((), ()),
        (("PRIMUS_A", "PRIMUS_B", "NCCL_ALGO", "NVTE_X"), ("PRIMUS_",)),
        (("TOY_A",), ()),  # one name is no shared prefix
        (("A_X", "A_Y", "B_X", "B_Y"), ("A_", "B_")),
        # A fifth of the names: 2 of 11 is not enough.
        (("P_1", "P_2", *(f"Q{i}_X" for i in range(9))), ()),
        (("PYTHON_A", "PYTHON_B", "LC_X", "LC_Y"), ()),  # system prefixes are never the project's
        (("_A", "_B", "NOUNDERSCORE", "TRAILING_"), ()),
    ],
)
def test_project_prefixes(names: tuple[str, ...], prefixes: tuple[str, ...]) -> None:
    assert project_prefixes(names) == prefixes


@pytest.mark.parametrize(
    ("name", "system"),
    [
        ("PATH", True),
        ("HOME", True),
        ("PYTHONPATH", True),
        ("PYTHONHASHSEED", True),  # shown anyway: the catalogue knows it
        ("LC_ALL", True),
        ("TERM", True),
        ("XDG_CACHE_HOME", True),
        ("TORCH_LOGS", False),
        ("PATHS", False),
        ("NCCL_ALGO", False),
    ],
)
def test_system_variables(name: str, system: bool) -> None:
    assert is_system(name) is system


def read(name: str, path: str, value: str | None = None) -> Read:
    seen = Seen.UNSET if value is None else Seen.VALUE
    site = TraceSite(path, None if path.endswith(".so") else 1)
    return Read(name=name, level=Level.PYTHON, seen=seen, value=value, count=1, sites=(site,))


def test_without_a_registry_the_project_is_the_code_under_the_current_folder(
    tmp_path: Path,
) -> None:
    reads = (
        read("APP_MINE", f"{tmp_path}/app.py"),
        read("LIB_IN_VENV", f"{tmp_path}/.venv/lib/python3.11/site-packages/lib.py"),
        read("LIB_ELSEWHERE", "/usr/lib/python3/dist-packages/lib.py"),
        read("LIB_SET", "/usr/lib/python3/dist-packages/lib.py", "x"),
        read("NATIVE", "libnative.so"),
        read("HOME", "/usr/lib/python3.11/pathlib.py", "/root"),
        read("PATH", f"{tmp_path}/app.py", "/bin"),  # the project's own read: shown
        read("CUBLAS_WORKSPACE_CONFIG", "/usr/lib/python3/dist-packages/torch/x.py"),
    )
    view = default_view(Trace(command=("x",), exit_status=0, reads=reads), None, tmp_path)
    assert view.shown == frozenset({"APP_MINE", "LIB_SET", "PATH", "CUBLAS_WORKSPACE_CONFIG"})
    assert (view.system, view.unset_elsewhere) == (1, 3)
    assert view.summary() == (
        "4 other variables read, not shown: 1 of the system and interpreter (PATH, HOME, "
        "PYTHON*, ...) and 3 unset, read only by libraries or native code and unknown to the "
        "registry; --all shows them, --only PATTERN picks names."
    )


def test_with_a_registry_its_names_and_prefixes_are_the_project(tmp_path: Path) -> None:
    reads = (
        read("SHOP_REGISTERED", "/lib/a.py"),
        read("SHOP_OTHER", "/lib/a.py"),
        read("ELSE", "/lib/a.py"),
        read("LIBX_EXTERNAL", "libx.so"),
    )
    reconciled = Reconciled(
        registry="registry.yaml",
        inventory=1,
        missing=(),
        resolved_dynamic=(),
        not_read=(),
        known=("LIBX_EXTERNAL", "SHOP_REGISTERED"),
        prefixes=("SHOP_",),
    )
    trace = Trace(command=("x",), exit_status=0, reads=reads)
    view = default_view(trace, reconciled, tmp_path)
    assert view.shown == frozenset({"SHOP_REGISTERED", "SHOP_OTHER", "LIBX_EXTERNAL"})
    assert only_view(trace, ["*_EXTERNAL", "ELSE"]).summary() == (
        "2 of 4 variables read match --only '*_EXTERNAL', 'ELSE'."
    )


def test_a_library_read_shown_by_none_says_all_lists_it(tmp_path: Path) -> None:
    reads = (read("LIB_X", "/lib/a.py"), read("SHOP_MINE", f"{tmp_path}/app/main.py"))
    trace = Trace(command=("x",), exit_status=0, reads=reads)
    outside = Missing(
        name="LIB_X", kind=MissKind.OUTSIDE_SCOPE, levels=(Level.PYTHON,), sites=reads[0].sites
    )
    reconciled = Reconciled(
        registry="registry.yaml",
        inventory=1,
        missing=(outside,),
        resolved_dynamic=(),
        not_read=(),
        known=("SHOP_MINE",),
    )
    table = render_table(
        trace, reconciled, tmp_path, default_view(trace, reconciled, tmp_path), 200
    )
    assert table.splitlines()[-5:] == [
        "Against registry.yaml (the static scan of its scope: 1 knob):",
        "  not in the static inventory: 1",
        "    and 1 variable read only by Python code outside the scope (libraries): --all lists "
        "them in the reads above; all in the JSON trace",
        "  dynamic reads the run resolved: 0",
        "  registered, never read: 0",
    ]


def test_the_example_in_the_guide_is_real_output() -> None:
    """docs/trace.md shows test_trace_cli's program as the table prints it (the C level
    was off: its note aside)."""
    note = next(line for line in GOLDEN_TABLE.splitlines(True) if line.startswith("note: "))
    example = "$ knobs trace --profile bitwise -- python app/main.py\ndone\n"
    example += GOLDEN_TABLE.replace(note, "")
    assert f"```\n{example}```\n" in (REPO / "docs" / "trace.md").read_text(encoding="utf-8")
