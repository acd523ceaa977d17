"""`knobs trace` against hostile programs: what they leave in the record folder (links to
devices, FIFOs, lines that are no records), reads without end, names that carry escape
codes, and secrets under names of every spelling. Real programs, real subprocesses."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from knobregistry.trace.model import Level, Seen
from knobregistry.trace.native import NativeLevel, find_compiler, native_level
from knobregistry.trace.python_hook import MAX_NAME, MAX_VALUE, PAIRS, VALUES, secret
from knobregistry.trace.records import collect
from knobregistry.trace.session import HOOK, traced_environment
from tests.conftest import CLI_ENV, REPO, write_tree
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

KNOBS = (sys.executable, "-m", "knobregistry")
HANG_GUARD_S = 120  # a hang fails the test instead of blocking the suite; nothing is timed
needs_compiler = pytest.mark.skipif(
    not sys.platform.startswith("linux") or find_compiler() is None,
    reason="the C level needs Linux and a C compiler",
)


def knobs_trace(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None, c_level: bool = False
) -> subprocess.CompletedProcess[str]:
    """The real `knobs trace`; the C level off unless asked for (golden text)."""
    # Wide enough for each note on one line: tests/test_table_widths.py wraps them.
    environment = {**os.environ, **CLI_ENV, "COLUMNS": "200"}
    if not c_level:
        (cwd / "empty-cache").mkdir(exist_ok=True)
        environment.update(CC="/nonexistent/cc", KNOBS_CACHE_DIR=str(cwd / "empty-cache"))
    environment.update(env or {})
    return subprocess.run(
        [*KNOBS, "trace", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )


def traced_run(
    tmp_path: Path,
    source: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    c_level: bool = False,
    secrets: Sequence[str] = (),
) -> tuple[Path, str]:
    """Run ``source`` as `knobs trace` runs a command, keeping its record folder; the
    folder and the program's standard output."""
    hook, records = tmp_path / "hook", tmp_path / "records"
    hook.mkdir()
    records.mkdir()
    shutil.copyfile(HOOK, hook / "sitecustomize.py")
    native = native_level(tmp_path / "cache") if c_level else NativeLevel(None, "off")
    assert native.library is not None or not c_level, native.skipped
    program = write_tree(tmp_path, {"program.py": source}) / "program.py"
    environ = {**os.environ, **(env or {})}
    extra = {"secrets": secrets} if secrets else {}
    environment = traced_environment(environ, hook, records, native, **extra)
    done = subprocess.run(
        [sys.executable, str(program), *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return records, done.stdout


# --- 6a: what a traced program leaves in its record folder ---------------------------

PLANTER = """
import os
folder = os.environ["KNOBS_TRACE_DIR"]
os.symlink("/dev/zero", os.path.join(folder, "py-1-zero.jsonl"))
os.mkfifo(os.path.join(folder, "c-2-1.rec"))
os.mkdir(os.path.join(folder, "py-3-folder.jsonl"))
with open("planted.jsonl", "w") as out:
    out.write('{"id": 0, "name": "APP_PLANTED", "state": "u", "value": null, '
              '"path": "/x.py", "line": 1}\\n')
os.symlink(os.path.abspath("planted.jsonl"), os.path.join(folder, "py-4-link.jsonl"))
os.getenv("APP_REAL")
print("done")
"""

GOLDEN_PLANTED = """\
knobs trace: exit status 0; 1 variable read: 1 in Python (1 process), 0 through getenv (0 processes).
note: the C level was skipped: no C compiler ($CC, cc, gcc or clang on PATH) to build the getenv interposer; getenv calls from native libraries are not recorded.
warning: the record folder held what is no record of the trace (the traced program can write there); skipped 4 files (links, pipes, devices, or too large).
VARIABLE  LEVEL   VALUE  READS  SITE
APP_REAL  python  unset  1      planter.py:10
No registry: the reads were not reconciled (name one with --registry PATH).
"""  # noqa: E501


def test_links_pipes_and_folders_in_the_record_folder_are_skipped_with_a_warning(
    tmp_path: Path,
) -> None:
    """A link to /dev/zero (a read without end), a FIFO (an open without end), a folder,
    and a link to a regular file: none is read, the trace ends, and one line says so."""
    write_tree(tmp_path, {"planter.py": PLANTER})
    done = knobs_trace(tmp_path, "--", sys.executable, "planter.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    assert done.stderr == GOLDEN_PLANTED


BAD_PYTHON_LINES = [
    b"not json",
    b"[1, 2]",
    b'{"id": "0", "name": "A", "state": "v", "value": "1", "path": "/p.py", "line": 1}',
    b'{"id": 0, "name": 5, "state": "v", "value": "1", "path": "/p.py", "line": 1}',
    b'{"id": 0, "name": "B", "state": "v", "value": 7, "path": "/p.py", "line": 1}',
    b'{"id": 0, "name": "C", "state": "v", "value": "1", "path": "/p.py", "line": true}',
    b'{"id": 0, "name": "C", "state": "v", "value": "1", "path": ["/p.py"], "line": 1}',
    b'{"id": 0, "name": "D", "state": "q", "value": "1", "path": "/p.py", "line": 1}',
    b'{"id": 0, "name": "E", "state": "u", "path": "/p.py", "line": 1, "stack": [["/p", "1"]]}',
    b'{"id": 0, "name": "' + b"N" * (MAX_NAME + 1) + b'", "state": "u", "path": "/p", "line": 1}',
    b'{"id": 0, "name": "F", "state": "v", "value": "'
    + b"v" * (MAX_VALUE + 1)
    + b'", "path": "/p", "line": 1}',
    b'{"id": 0, "name": "G", "state": "u", "path": "/p", "line": 1, "pad": "'
    + b" " * (300 * 1024)
    + b'"}',
    b'{"id": 9, "more": 5}',
    b'{"id": 0, "more": -5}',
    b'{"copy": "x"}',
    b'{"unrecorded": "many"}',
    b'{"id": 1, "name": "APP_KEPT", "state": "v", "value": "1", "path": "/p.py", "line": 3}',
    b'{"id": 1, "name": "APP_AGAIN", "state": "u", "path": "/p.py", "line": 4}',  # id taken
    b'{"id": 1, "more": 2}',
    b"\xff\xfe not UTF-8",
]

BAD_C_LINES = (
    b"R garbage\n"
    b"R 00000000000000aa 0 v 8 1 0:APP_C_OK1\n"
    b"C 00000000000000aa 0 lots\n"
    b"C 00000000000000aa 9 1\n"
    b"X what\n"
    b"R 00000000000000bb 0 v 99999999 0 0:ABC\n"
    b"R 00000000000000bb 0 u 3 5 0:ABCvalue\n"
    b"O 00000000000000cc 5\n"
    b"U 0\n"
    b"C 00000000000000aa 0 3\n"
)


def test_lines_that_are_no_records_are_counted_and_the_rest_is_kept(tmp_path: Path) -> None:
    (tmp_path / "py-1-aa.jsonl").write_bytes(b"\n".join(BAD_PYTHON_LINES) + b"\n")
    (tmp_path / "c-2-1.rec").write_bytes(BAD_C_LINES)
    found = collect(tmp_path)
    reads = {(r.name, r.level): r for r in found.reads}
    assert set(reads) == {("APP_KEPT", Level.PYTHON), ("APP_C_OK", Level.C)}
    assert reads["APP_KEPT", Level.PYTHON].count == 3
    assert (reads["APP_C_OK", Level.C].value, reads["APP_C_OK", Level.C].count) == ("1", 4)
    assert found.unreadable.files == 0
    assert found.unreadable.lines == (len(BAD_PYTHON_LINES) - 2) + 8
    assert found.processes == (1, 1)


BAD_LINES_PROGRAM = """
import os, sys
folder = os.environ["KNOBS_TRACE_DIR"]
with open(os.path.join(folder, "py-1-bad.jsonl"), "wb") as out:
    out.write(b'not json\\n{"id": 0, "name": 5}\\n')
print(os.environ.get("APP_REAL"))
"""

GOLDEN_BAD_LINES = """\
knobs trace: exit status 0; 1 variable read: 1 in Python (2 processes), 0 through getenv (0 processes).
note: the C level was skipped: no C compiler ($CC, cc, gcc or clang on PATH) to build the getenv interposer; getenv calls from native libraries are not recorded.
warning: the record folder held what is no record of the trace (the traced program can write there); skipped 2 lines (not records, or fields of a wrong type or length).
VARIABLE  LEVEL   VALUE  READS  SITE
APP_REAL  python  unset  1      bad.py:5
No registry: the reads were not reconciled (name one with --registry PATH).
"""  # noqa: E501


def test_bad_lines_are_one_warning_in_the_report_and_counted_in_the_json(tmp_path: Path) -> None:
    write_tree(tmp_path, {"bad.py": BAD_LINES_PROGRAM})
    out = tmp_path / "trace.json"
    done = knobs_trace(tmp_path, "--out", str(out), "--", sys.executable, "bad.py")
    assert done.returncode == 0, done.stderr
    assert done.stderr == GOLDEN_BAD_LINES
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["unreadable"] == {"files": 0, "lines": 2}
    assert document["unrecorded"] == 0


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
FIELDS = ("id", "name", "state", "value", "path", "line", "stack", "more", "others", "copy")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES), max_size=6),
    raw=st.binary(max_size=200),
)
@example(lines=[], raw=b"\n\n")  # seven empty lines in all: each counted
def test_no_record_file_makes_the_reader_fail(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, object]], raw: bytes
) -> None:
    """Objects with fields of any type, and bytes of any kind, in both kinds of file:
    every read kept is well formed; every line that is not is counted."""
    folder = tmp_path_factory.mktemp("records")
    text = "".join(json.dumps(line) + "\n" for line in lines).encode()
    files = (text + raw, raw + b"\n" + raw)
    (folder / "py-1-aa.jsonl").write_bytes(files[0])
    (folder / "c-1-1.rec").write_bytes(files[1])
    found = collect(folder)
    for read in found.reads:
        assert isinstance(read.name, str) and len(read.name.encode("utf-8", "replace")) <= MAX_NAME
        assert read.value is None or isinstance(read.value, str)
        assert type(read.count) is int and read.count > 0
        assert all(isinstance(site.path, str) for site in read.sites)
    # Each line of the two files is counted once at most (a last one without its newline too).
    written = sum(data.count(b"\n") + (not data.endswith(b"\n")) for data in files if data)
    assert found.unreadable.lines <= written


# --- 6b: reads without end ------------------------------------------------------------

CHANGING = """
import ctypes, os, sys
reads = int(sys.argv[1])
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
for step in range(reads):
    os.environ["APP_STEP"] = str(step)
    os.environ.get("APP_STEP")
    if sys.argv[2] == "c":
        libc.getenv(b"APP_STEP")
"""


def _steps(tmp_path: Path, level: Level, reads: int) -> None:
    records, _ = traced_run(tmp_path, CHANGING, str(reads), level.value, c_level=level is Level.C)
    size = sum(path.stat().st_size for path in records.iterdir())
    assert size < 20_000, f"{size} bytes of records for {reads} reads"
    found = collect(records)
    steps = [r for r in found.reads if r.name == "APP_STEP" and r.level is level]
    kept = [r for r in steps if r.seen is Seen.VALUE]
    assert [r.value for r in kept] == sorted(str(n) for n in range(VALUES))
    assert all(r.count == 1 for r in kept)
    [others] = [r for r in steps if r.seen is Seen.OTHERS]
    assert others.count == reads - VALUES
    assert found.unrecorded == 0


def test_a_changing_value_read_in_python_is_counted_not_written_per_read(tmp_path: Path) -> None:
    _steps(tmp_path, Level.PYTHON, 20_000)


@needs_compiler
def test_a_changing_value_read_through_getenv_is_counted_not_written_per_read(
    tmp_path: Path,
) -> None:
    _steps(tmp_path, Level.C, 20_000)


NAMES = """
import ctypes, os, sys
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
names = int(sys.argv[1])
for n in range(names):
    if sys.argv[2] == "c":
        libc.getenv(b"APP_N_%d" % n)
    else:
        os.environ.get(f"APP_N_{n}")
hook = sys.modules["sitecustomize"]
if sys.argv[2] == "python" and hasattr(hook, "_pairs"):
    kept = [key for pair in hook._pairs.values() for key in pair.values]
    assert all(not isinstance(key, str) or key in "usl" for key in kept)
    print(len(hook._pairs), len(hook._counts))
"""


@pytest.mark.parametrize("level", [Level.PYTHON, pytest.param(Level.C, marks=needs_compiler)])
def test_names_past_the_bound_are_counted_and_memory_stays_bounded(
    tmp_path: Path, level: Level
) -> None:
    """More (name, site) pairs than a process keeps: the rest is counted as unrecorded,
    and the hook keeps hashes of values, never the values."""
    names = PAIRS + 100
    records, output = traced_run(tmp_path, NAMES, str(names), level.value, c_level=level is Level.C)
    found = collect(records)
    kept = [r for r in found.reads if r.name.startswith("APP_N_") and r.level is level]
    assert len(kept) <= PAIRS
    assert found.unrecorded >= 100
    if level is Level.PYTHON:
        # The pairs read before the loop are kept first; every later one is counted only.
        assert len(kept) + found.unrecorded == names
        pairs, ids = map(int, output.split())
        assert pairs <= PAIRS and ids <= PAIRS * VALUES
    else:  # the interpreter's own getenv calls may come after the loop
        assert names <= len(kept) + found.unrecorded < names + 100


LONG = """
import ctypes, os, sys
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
for n in range(3):
    os.environ["APP_LONG"] = "x" * (int(sys.argv[1]) + n)
    os.environ.get("APP_LONG")
    libc.getenv(b"APP_LONG")
"""


@pytest.mark.parametrize("level", [Level.PYTHON, pytest.param(Level.C, marks=needs_compiler)])
def test_values_too_long_to_keep_are_one_read_without_its_value(
    tmp_path: Path, level: Level
) -> None:
    records, _ = traced_run(tmp_path, LONG, str(MAX_VALUE), c_level=level is Level.C)
    reads = [r for r in collect(records).reads if r.name == "APP_LONG" and r.level is level]
    assert [(r.seen, r.value, r.count) for r in reads] == [
        (Seen.LONG, None, 2),
        (Seen.VALUE, "x" * MAX_VALUE, 1),
    ]


KILLED = """
import ctypes, os, signal, sys
getenv = ctypes.CDLL(None).getenv
for step in range(70_000):
    if sys.argv[1] == "c":
        getenv(b"APP_LOOP")
    else:
        os.environ.get("APP_LOOP")
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("level", [Level.PYTHON, pytest.param(Level.C, marks=needs_compiler)])
def test_a_killed_process_leaves_its_names_and_the_counts_of_the_last_flush(
    tmp_path: Path, level: Level
) -> None:
    hook, records = tmp_path / "hook", tmp_path / "records"
    hook.mkdir()
    records.mkdir()
    shutil.copyfile(HOOK, hook / "sitecustomize.py")
    program = write_tree(tmp_path, {"killed.py": KILLED}) / "killed.py"
    native = native_level(tmp_path / "cache") if level is Level.C else NativeLevel(None, "off")
    env = traced_environment(os.environ, hook, records, native)
    command = [sys.executable, str(program), level.value]
    done = subprocess.run(command, env=env, timeout=HANG_GUARD_S, check=False)
    assert done.returncode == -9
    [read] = [r for r in collect(records).reads if r.name == "APP_LOOP" and r.level is level]
    assert 60_000 <= read.count < 70_000  # the counts are written every 65,536 reads


# --- 6c: names and values that carry escape codes -------------------------------------

ESCAPES = """
import os
name = "APP_" + chr(27) + "[2J" + chr(10) + "FAKE"
os.environ.get(name)
os.environ.get("APP_COLOR")
"""

ESCAPES_REGISTRY = """
version: 1
scan:
  paths: [app]
  policy: all
knobs:
  APP_COLOR:
    default_on: null
    triage: exempt
    reason: A colour.
profiles:
  plain:
    description: No colour.
    env:
      APP_COLOR: plain
"""

GOLDEN_ESCAPES = """\
knobs trace: exit status 0; 2 variables read: 2 in Python (1 process), 0 through getenv (0 processes).
note: the C level was skipped: no C compiler ($CC, cc, gcc or clang on PATH) to build the getenv interposer; getenv calls from native libraries are not recorded.
Profile plain: 1 difference
  APP_COLOR: expected 'plain', found '\\x1b[31mred\\n' (read by python at app/\\x1b]0;title\\x07.py:4)
VARIABLE           LEVEL   VALUE            READS  SITE
APP_\\x1b[2J\\nFAKE  python  unset            1      app/\\x1b]0;title\\x07.py:3
APP_COLOR          python  '\\x1b[31mred\\n'  1      app/\\x1b]0;title\\x07.py:4
Against registry.yaml (the static scan of its scope: 1 knob):
  not in the static inventory: 1
    APP_\\x1b[2J\\nFAKE  python  dynamic read  app/\\x1b]0;title\\x07.py:3
  dynamic reads the run resolved: 1
    app/\\x1b]0;title\\x07.py:3  os.environ.get(name): APP_\\x1b[2J\\nFAKE
  registered, never read: 0
"""  # noqa: E501


def test_escape_codes_and_line_breaks_are_escaped_in_every_line_of_the_report(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"app/\x1b]0;title\x07.py": ESCAPES, "registry.yaml": ESCAPES_REGISTRY})
    (tmp_path / ".git").mkdir()
    out = tmp_path / "trace.json"
    done = knobs_trace(
        tmp_path, "-p", "plain", "-o", str(out), "--", sys.executable, "app/\x1b]0;title\x07.py",
        env={"APP_COLOR": "\x1b[31mred\n"},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == GOLDEN_ESCAPES
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text
    reads = {r["name"]: r for r in json.loads(text)["reads"]}
    assert reads["APP_COLOR"]["value"] == "\x1b[31mred\n"  # JSON holds the value exactly
    assert "APP_\x1b[2J\nFAKE" in reads


@needs_compiler
def test_escape_codes_read_through_getenv_are_escaped(tmp_path: Path) -> None:
    source = 'import ctypes\nctypes.CDLL(None).getenv(b"APP_\\x1b[2J\\nC")\n'
    write_tree(tmp_path, {"c.py": source})
    # --all: an unset variable read only by native code is one of the summary's otherwise.
    done = knobs_trace(tmp_path, "--all", "--", sys.executable, "c.py", c_level=True)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr
    assert re.search(r"^APP_\\x1b\[2J\\nC +c +unset ", done.stderr, re.MULTILINE)


def test_the_pytest_plugin_escapes_the_names_it_lists(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        app='import os\n\ndef read():\n    return os.environ.get("DEMO_\\x1b[2J")\n',
        test_app="import app\n\ndef test_reads():\n    app.read()\n",
    )
    result = pytester.runpytest_subprocess(*PLUGIN, "--knobs-trace", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "\x1b" not in result.stdout.str()
    assert "  DEMO_\\x1b[2J  app.py:4" in result.stdout.str().splitlines()


# --- 6d: secrets under names of every spelling ----------------------------------------

SECRETS = [
    "MYSQL_PWD",
    "DB_PASS",
    "DB_PASSWD",
    "DB_PASSWORD",
    "GH_PAT",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_CREDENTIAL",
    "PROXY_AUTH",
    "SESSION_COOKIE",
    "SSH_PRIVATE_KEY_FILE",
    "HF_TOKEN",
    "hf_token",
    "AWS_SECRET_ACCESS_KEY",
    "WANDB_API_KEY",
    "apiKey",
    "GITHUB_ACCESSTOKEN",
    "OPENAI_APIKEY",
    "APP_SECRETS",
    "X_AUTH2",
]
NOT_SECRETS = [
    "PATH",
    "PATCH_SIZE",
    "PWD",
    "OLDPWD",
    "TOKENIZERS_PARALLELISM",
    "MAX_TOKENS",
    "GIT_AUTHOR_NAME",
    "BYPASS_CACHE",
    "PASSTHROUGH",
    "KEYBOARD_LAYOUT",
    "AUTHOR",
    "PRIMUS_HC_TRITON",
]


@pytest.mark.parametrize("name", SECRETS)
def test_names_with_a_secret_part_are_secrets(name: str) -> None:
    assert secret(name)


@pytest.mark.parametrize("name", NOT_SECRETS)
def test_names_with_no_secret_part_are_not(name: str) -> None:
    assert not secret(name)


def test_extra_patterns_match_whole_parts() -> None:
    assert secret("APP_SALT", ("SALT",)) and secret("app_signing_seed_v2", ("SIGNING_SEED",))
    assert not secret("APP_SALTY", ("SALT",)) and not secret("APP_SALT", ())


SECRET_VALUE = "hunter2-never-written"

READ_ALL = """
import ctypes, os, sys
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
for name in sys.argv[1:]:
    os.environ.get(name)
    libc.getenv(name.encode())
"""


@pytest.mark.parametrize("c_level", [False, pytest.param(True, marks=needs_compiler)])
@pytest.mark.parametrize("extra", [(), ("SALT",)])
def test_secret_values_never_reach_the_record_files(
    tmp_path: Path, c_level: bool, extra: tuple[str, ...]
) -> None:
    names = [*SECRETS, *(f"APP_{word}" for word in extra)]
    env = dict.fromkeys(names, SECRET_VALUE) | {"PATCH_SIZE": "a-visible-value"}
    records, _ = traced_run(
        tmp_path, READ_ALL, *names, "PATCH_SIZE", env=env, c_level=c_level, secrets=extra
    )
    data = b"".join(path.read_bytes() for path in records.iterdir())
    assert SECRET_VALUE.encode() not in data
    assert b"a-visible-value" in data
    found = collect(records)
    levels = {Level.PYTHON, Level.C} if c_level else {Level.PYTHON}
    withheld = {(r.name, r.level) for r in found.reads if r.seen is Seen.WITHHELD}
    assert withheld == {(name, level) for name in names for level in levels}


NAME_PARTS = st.sampled_from(
    (
        *("PWD", "PASS", "PAT", "PATH", "PATCH", "KEY", "MONKEY", "TOKEN", "TOKENIZERS"),
        *("AUTH", "AUTHOR", "SALT", "APP", "x", "api", "Key", "2", "db", "Pass", "OLDPWD"),
    )
)
SEPARATORS = st.sampled_from(("_", "", "-", ".", "__", "9"))


@st.composite
def names(draw: st.DrawFn) -> str:
    parts: list[str] = draw(st.lists(NAME_PARTS, min_size=1, max_size=4))
    out = parts[0]
    for part in parts[1:]:
        out += draw(SEPARATORS) + part
    return out


@needs_compiler
@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=st.lists(names(), min_size=20, max_size=40, unique=True))
def test_both_levels_find_the_same_secrets(
    tmp_path_factory: pytest.TempPathFactory, drawn: list[str]
) -> None:
    """What the interposer withholds is what the Python hook withholds, name by name."""
    tmp_path = tmp_path_factory.mktemp("secrets")
    env = dict.fromkeys(drawn, "v")
    records, _ = traced_run(tmp_path, READ_ALL, *drawn, env=env, c_level=True, secrets=["SALT"])
    found = collect(records)
    for level in (Level.PYTHON, Level.C):
        withheld = {r.name for r in found.reads if r.level is level and r.seen is Seen.WITHHELD}
        assert withheld == {name for name in drawn if secret(name, ("SALT",))}, level


PYPROJECT = """
[tool.knobs]
trace_secrets = ["SALT"]
"""

GOLDEN_PROJECT_SECRET = """\
knobs trace: exit status 0; 2 variables read: 2 in Python (1 process), 0 through getenv (0 processes).
note: the C level was skipped: no C compiler ($CC, cc, gcc or clang on PATH) to build the getenv interposer; getenv calls from native libraries are not recorded.
VARIABLE   LEVEL   VALUE         READS  SITE
APP_SALT   python  set (secret)  1      salt.py:2
MYSQL_PWD  python  set (secret)  1      salt.py:3
No registry: the reads were not reconciled (name one with --registry PATH).
"""  # noqa: E501


def test_a_project_names_its_own_secret_patterns(tmp_path: Path) -> None:
    source = 'import os\nos.environ.get("APP_SALT")\nos.environ.get("MYSQL_PWD")\n'
    write_tree(tmp_path, {"salt.py": source, "pyproject.toml": PYPROJECT})
    (tmp_path / ".git").mkdir()
    env = {"APP_SALT": SECRET_VALUE, "MYSQL_PWD": SECRET_VALUE}
    done = knobs_trace(tmp_path, "--", sys.executable, "salt.py", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == GOLDEN_PROJECT_SECRET


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            'trace_secrets = "SALT"',
            "[tool.knobs] trace_secrets must be a list of at most 64 name parts, such as "
            '["SALT", "SIGNING_SEED"].',
        ),
        (
            'trace_secrets = ["SALT*"]',
            "[tool.knobs] trace_secrets: 'SALT*' is not a name part; give letters, digits and "
            "underscores (SIGNING_SEED, at most 64), matched as whole parts of a variable's "
            "name.",
        ),
    ],
)
def test_a_bad_secret_setting_is_a_usage_error(tmp_path: Path, setting: str, message: str) -> None:
    write_tree(tmp_path, {"pyproject.toml": f"[tool.knobs]\n{setting}\n"})
    (tmp_path / ".git").mkdir()
    done = knobs_trace(tmp_path, "--", sys.executable, "-c", "pass")
    assert done.returncode == 2
    assert done.stderr == f"knobs trace: error: {tmp_path / 'pyproject.toml'}: {message}\n"


# --- the benchmark --------------------------------------------------------------------


def test_the_trace_benchmark_measures_every_run() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/trace_overhead.py", "--reads", "2000"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S * 2,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Python level (os.environ.get), 2,000 reads of a changing value:"
    assert lines[5] == "C level (getenv through ctypes), 2,000 reads of a changing value:"
    number = r" +[\d.]+ s  peak [\d.]+ MB"
    for block in (lines[1:5], lines[6:10]):
        assert [line.split()[0] for line in block] == ["untraced", "traced", "reading", "knobs"]
        assert all(re.search(number, line) for line in block), block
