"""`knobs trace`: real programs, real subprocesses, the whole process tree traced.

The C level needs a C compiler; tests of it are skipped cleanly where there is
none. The golden outputs run with the C level switched off (CC names no compiler
and the cache is empty), so they do not depend on what the Python interpreter
itself reads through getenv at start-up.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from knobregistry.trace.native import find_compiler
from tests.conftest import REPO, run_knobs, write_tree

PROGRAM = '''
"""A program that reads its knobs in every way a trace must see."""

import ctypes
import multiprocessing
import os
import subprocess
import sys


def fused() -> bool:
    return os.environ.get("APP_FUSED", "1") != "0"


class Built:
    """Its name names a variable: a name the scanner cannot know."""


def built() -> str | None:
    name = "APP_" + Built.__name__.upper()
    return os.environ.get(name)


def in_worker() -> None:
    os.getenv("APP_WORKER_READ")


def main() -> int:
    fused()
    built()
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    libc.getenv(b"APP_ONLY_FROM_C")
    libc.getenv(b"APP_SIGNING_KEY")
    os.environ.get("APP_API_TOKEN")
    subprocess.run([sys.executable, "-c", "import os; os.getenv('APP_CHILD_READ')"], check=True)
    for method in ("spawn", "fork"):
        worker = multiprocessing.get_context(method).Process(target=in_worker)
        worker.start()
        worker.join()
    print("done")
    return int(os.environ.get("APP_EXIT", "0"))


if __name__ == "__main__":
    sys.exit(main())
'''

REGISTRY = """
version: 1
scan:
  paths: [app]
  policy: all
knobs:
  APP_FUSED:
    default: "1"
    default_on: true
    off_value: "0"
    triage: breaks-bitwise
  APP_EXIT:
    default: "0"
    default_on: null
    triage: exempt
    reason: The exit status of the program.
  APP_WORKER_READ:
    default_on: null
    triage: exempt
    reason: Read by the workers.
  APP_API_TOKEN:
    default_on: null
    triage: exempt
    reason: A secret.
  APP_NEVER:
    default_on: null
    triage: exempt
    reason: Registered, never read.
external:
  APP_ONLY_FROM_C:
    library: the C library
    description: Read only through getenv.
"""
# The profile of every registry the trace tests hold (test_trace_view's too).
BITWISE = """\
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    select:
      - {default_on: true, set: "off"}
"""

needs_compiler = pytest.mark.skipif(
    not sys.platform.startswith("linux") or find_compiler() is None,
    reason="the C level needs Linux and a C compiler",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with its registry; `.git` stops the registry search at its root."""
    root = write_tree(
        tmp_path / "project", {"app/main.py": PROGRAM, "registry.yaml": REGISTRY + BITWISE}
    )
    (root / ".git").mkdir()
    return root


def without_c(tmp_path: Path) -> dict[str, str]:
    """An environment in which the interposer cannot be built: the C level is skipped."""
    cache = tmp_path / "empty-cache"
    cache.mkdir(exist_ok=True)
    # Wide enough for each note on one line: tests/test_table_widths.py wraps them.
    return {"CC": "/nonexistent/cc", "KNOBS_CACHE_DIR": str(cache), "COLUMNS": "200"}


def clean(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` for a run; the test process itself sets no APP_ variable."""
    assert not [name for name in os.environ if name.startswith("APP_")]
    return {"COLUMNS": "200", **(env or {})}


def trace_json(cwd: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = cwd / "trace.json"
    done = run_knobs("trace", "--out", str(out), *args, cwd=cwd, env=clean(env))
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return document


def by_name(document: dict[str, Any], key: str) -> dict[str, Any]:
    return {entry["name"]: entry for entry in document[key]}


GOLDEN_TABLE = """\
knobs trace: exit status 0; 6 variables read: 6 in Python (4 processes), 0 through getenv (0 processes).
note: the C level was skipped: no C compiler ($CC, cc, gcc or clang on PATH) to build the getenv interposer; getenv calls from native libraries are not recorded.
Profile bitwise: 1 difference
  APP_FUSED: expected '0', found '1' (read by python at app/main.py:11)
VARIABLE         LEVEL   VALUE         READS  SITE
APP_API_TOKEN    python  set (secret)  1      app/main.py:34
APP_BUILT        python  unset         1      app/main.py:20
APP_CHILD_READ   python  unset         1      <string>:1
APP_EXIT         python  unset         1      app/main.py:41
APP_FUSED        python  '1'           1      app/main.py:11
APP_WORKER_READ  python  unset         2      app/main.py:24
Against registry.yaml (the static scan of its scope: 4 knobs):
  not in the static inventory: 2
    APP_BUILT  python  dynamic read  app/main.py:20
    and 1 variable read only by Python code outside the scope (libraries): in the reads above, and in the JSON trace
  dynamic reads the run resolved: 1
    app/main.py:20  os.environ.get(name): APP_BUILT
  registered, never read: 2
    APP_NEVER (knob), APP_ONLY_FROM_C (external)
"""  # noqa: E501


def test_golden_table_profile_fails_naming_the_knob_and_its_site(
    project: Path, tmp_path: Path
) -> None:
    env = {**without_c(tmp_path), "APP_FUSED": "1", "APP_API_TOKEN": "hunter2-not-shown"}
    done = run_knobs(
        "trace", "--profile", "bitwise", "--", sys.executable, "app/main.py", cwd=project,
        env=clean(env),
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == "done\n"  # the program's own output passes through
    assert done.stderr == GOLDEN_TABLE


def test_profile_passes_when_every_read_holds_its_value(project: Path, tmp_path: Path) -> None:
    env = {**without_c(tmp_path), "APP_FUSED": "0"}
    done = run_knobs(
        "trace", "--profile", "bitwise", "--", sys.executable, "app/main.py", cwd=project,
        env=clean(env),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "\nProfile bitwise: 0 differences\n" in done.stderr


def test_profile_difference_in_json(project: Path, tmp_path: Path) -> None:
    env = {**without_c(tmp_path), "APP_FUSED": "on"}
    out = project / "trace.json"
    done = run_knobs(
        "trace", "-p", "bitwise", "-o", str(out), "--", sys.executable, "app/main.py",
        cwd=project, env=clean(env),
    )  # fmt: skip
    assert done.returncode == 1
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["profile"] == "bitwise"
    assert document["profile_differences"] == [
        {
            "name": "APP_FUSED",
            "expected": "0",
            "found": "on",
            "level": "python",
            "sites": [{"path": "app/main.py", "line": 11}],
        }
    ]
    assert document["levels"]["c"].startswith("skipped: no C compiler")


@needs_compiler
def test_both_levels_the_process_tree_and_the_reconcile(project: Path) -> None:
    document = trace_json(project, "--", sys.executable, "app/main.py")
    reads = {(r["name"], r["level"]): r for r in document["reads"]}
    assert reads["APP_BUILT", "python"]["sites"] == [{"path": "app/main.py", "line": 20}]
    assert reads["APP_ONLY_FROM_C", "c"]["value"] is None
    assert reads["APP_FUSED", "python"]["value"] is None
    assert reads["APP_CHILD_READ", "python"]["sites"] == [{"path": "<string>", "line": 1}]
    assert reads["APP_WORKER_READ", "python"]["count"] == 2  # the spawn and the fork worker
    assert ("APP_ONLY_FROM_C", "python") not in reads
    missing = by_name(document, "not_in_inventory")
    assert missing["APP_BUILT"]["kind"] == "dynamic"
    assert missing["APP_ONLY_FROM_C"] == {
        "name": "APP_ONLY_FROM_C",
        "kind": "c-level",
        "levels": ["c"],
        "registered": "external",
        "sites": missing["APP_ONLY_FROM_C"]["sites"],
    }
    assert missing["APP_CHILD_READ"]["kind"] == "outside-scope"
    assert "APP_FUSED" not in missing
    assert document["resolved_dynamic"] == [
        {
            "path": "app/main.py",
            "line": 20,
            "expression": "os.environ.get(name)",
            "names": ["APP_BUILT"],
        }
    ]
    assert document["registered_not_read"] == [{"name": "APP_NEVER", "entry": "knob"}]
    assert document["levels"] == {"c": "traced", "python": "traced"}


@needs_compiler
def test_secret_values_are_never_written(project: Path) -> None:
    secret = "hunter2-do-not-print"
    env = {"APP_API_TOKEN": secret, "APP_SIGNING_KEY": secret, "APP_FUSED": "0"}
    out = project / "trace.json"
    done = run_knobs(
        "trace", "-p", "bitwise", "-o", str(out), "--", sys.executable, "app/main.py",
        cwd=project, env=clean(env),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert secret not in text and secret not in done.stderr
    reads = {(r["name"], r["level"]): r for r in json.loads(text)["reads"]}
    assert reads["APP_API_TOKEN", "python"]["value"] == "set"
    assert reads["APP_API_TOKEN", "python"]["secret"] is True
    assert reads["APP_SIGNING_KEY", "c"]["value"] == "set"


@needs_compiler
def test_the_trace_file_is_byte_identical_for_the_same_reads(project: Path) -> None:
    first = project / "one.json"
    second = project / "two.json"
    for out in (first, second):
        done = run_knobs(
            "trace", "--out", str(out), "--", sys.executable, "app/main.py", cwd=project,
            env=clean(),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert first.read_bytes() == second.read_bytes()


LINGERING = """
import subprocess, sys
late = "import os, time; time.sleep(float(sys.argv[1])); os.getenv('APP_LATE')"
quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
subprocess.Popen([sys.executable, "-c", "import sys;" + late, sys.argv[1]], **quiet)
"""


def test_processes_the_command_leaves_running_are_waited_for(tmp_path: Path) -> None:
    """A child that reads after the command exits (a resource tracker, a daemon)."""
    env = without_c(tmp_path)
    program = write_tree(tmp_path, {"lingering.py": LINGERING}) / "lingering.py"
    out = tmp_path / "trace.json"
    args = ("trace", "--out", str(out), "--", sys.executable, str(program))
    done = run_knobs(*args, "0.5", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert by_name(document, "reads")["APP_LATE"]["value"] is None
    assert document["still_running"] == 0

    done = run_knobs("trace", "--grace", "0", *args[1:], "3", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert "APP_LATE" not in by_name(document, "reads")
    assert document["still_running"] == 1
    assert (
        "note: 1 process of the tree still ran when the grace period (--grace) ended; what "
        "they read until then is included, later reads are not.\n"
    ) in done.stderr


def test_exit_status_passes_through(project: Path, tmp_path: Path) -> None:
    env = {**without_c(tmp_path), "APP_EXIT": "3"}
    done = run_knobs("trace", "--", sys.executable, "app/main.py", cwd=project, env=clean(env))
    assert done.returncode == 3
    assert done.stdout == "done\n"
    assert done.stderr.startswith("knobs trace: exit status 3;")


def test_a_signal_and_a_missing_command(tmp_path: Path) -> None:
    env = without_c(tmp_path)
    killed = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    done = run_knobs("trace", "--", sys.executable, "-c", killed, cwd=tmp_path, env=env)
    assert done.returncode == 143
    missing = run_knobs("trace", "--", "no-such-command-here", cwd=tmp_path, env=env)
    assert missing.returncode == 127
    assert missing.stderr == "knobs trace: error: no-such-command-here: command not found\n"


FORMS = """
import os
os.environ.get("F_GET")
os.getenv("F_GETENV", "d")
"F_IN" in os.environ
os.environ.get("F_SET")
try:
    os.environ["F_SUBSCRIPT"]
except KeyError:
    pass
copy = os.environ.copy()
copy.get("F_FROM_COPY")
dict(os.environ)
for key, value in os.environ.items():
    pass
os.environ.setdefault("F_WRITTEN", "1")
os.environ.pop("F_SET")
"""


def test_python_forms_copies_and_writes(tmp_path: Path) -> None:
    write_tree(tmp_path, {"forms.py": FORMS})
    (tmp_path / ".git").mkdir()
    env = {**without_c(tmp_path), "F_SET": "x"}
    document = trace_json(tmp_path, "--", sys.executable, "forms.py", env=env)
    sites = {r["name"]: r["sites"][0]["line"] for r in document["reads"]}
    assert sites == {
        "F_GET": 2,
        "F_GETENV": 3,
        "F_IN": 4,
        "F_SET": 5,
        "F_SUBSCRIPT": 7,
        "F_FROM_COPY": 11,
    }
    assert [(c["path"], c["line"]) for c in document["copies"]] == [
        ("forms.py", 10),
        ("forms.py", 12),
        ("forms.py", 13),
    ]
    assert document["registry"] is None


@pytest.mark.skipif(
    shutil.which("git") is None or not (REPO / "examples" / "train.py").is_file(),
    reason="the bundled example",
)
def test_the_bundled_example(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    examples = REPO / "examples"
    out = tmp_path / "trace.json"
    done = run_knobs(
        "trace", "--out", str(out), "--", sys.executable, "train.py", "--steps", "1",
        cwd=examples, env=clean({"TRITON_INTERPRET": "1"}),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("step 1 lm loss ")
    document = json.loads(out.read_text(encoding="utf-8"))
    python = {r["name"] for r in document["reads"] if r["level"] == "python"}
    assert {n for n in python if n.startswith("TOY_")} == {
        "TOY_BLOCK_SIZE",
        "TOY_DEBUG_DUMP",
        "TOY_EMBED_GRAD_ATOMIC",
        "TOY_EMBED_GRAD_PARALLEL",
        "TOY_FUSED_ADAMW",
        "TOY_FUSED_LINEAR_CE",
        "TOY_FUSED_SDPA",
        "TOY_RMSNORM_TRITON",
        "TOY_ROPE_CACHE",
        "TOY_ROPE_TRITON",
        "TOY_SWIGLU_FUSED",
        "TOY_SWIGLU_TRITON_BWD",
    }
    assert document["registered_not_read"] == []
    missing = by_name(document, "not_in_inventory")
    assert not [m for m in missing.values() if m["kind"] == "scanner-miss"]
    if document["levels"]["c"] == "traced":  # Triton reads its knobs through its C extension
        assert missing["TRITON_INTERPRET"]["kind"] == "c-level"


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e400", "later"])
def test_the_grace_period_is_a_finite_number_of_seconds(tmp_path: Path, value: str) -> None:
    done = run_knobs("trace", "--grace", value, "--", "true", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '--grace': {value} is not a number of seconds of 0 or above "
        "(a finite one, such as 600)."
    )
