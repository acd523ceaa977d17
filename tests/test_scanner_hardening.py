"""Hostile inputs (issue 18): no crash, no hang, no unbounded read, no silent skip.

Each test runs what could hang in a subprocess with a timeout, so that a
regression fails the test instead of stalling the suite.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from scanner import ScanError, Settings, scan
from scanner.run import pool as scanner_pool
from scanner.run.cache import Cache, CacheError
from scanner.run.readers import process
from scanner.run.work import FileOutcome, FileTask, Options
from scanner.source.depth import MAX_DEPTH
from scanner.syntax.index import WrapperIndex
from tests.conftest import CLI_ENV, REPO, as_nobody, write_tree

GOOD = 'import os\n\nON = os.environ.get("{name}", "1") != "0"\n'
NOT_REGULAR = "Not a regular file ({kind}); only regular files are read."
TOO_DEEP = (
    "Code on line {line} nests more than 200 levels deep, more than the scanner's parser "
    "can take; the file is not analysed (split the expression, or exclude the file if it "
    "is generated)."
)


def _knobs(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """The real CLI, output as bytes, killed if it outlives ``timeout`` (a hang)."""
    environment = {**os.environ, **CLI_ENV}
    return subprocess.run(
        [sys.executable, "-m", "knobregistry", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def _scan_json(*args: str, cwd: Path) -> dict[str, list[dict[str, object]]]:
    done = _knobs("scan", "--format", "json", *args, cwd=cwd)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    data: dict[str, list[dict[str, object]]] = json.loads(done.stdout.decode("utf-8"))
    return data


def _errors(data: dict[str, list[dict[str, object]]]) -> list[tuple[object, object]]:
    return [(e["path"], e["message"]) for e in data["errors"]]


def _names(data: dict[str, list[dict[str, object]]]) -> list[object]:
    return [k["name"] for k in data["knobs"]]


# Row: deep nesting kills libcst; a dead worker sank the whole pool ---------------------


def test_deep_nesting_is_left_out_and_the_pool_scans_the_rest(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        f"pkg/m{i:02}.py": GOOD.format(name=f"GOOD_{i:02}") for i in range(30)
    }
    read = 'os.environ.get("DEEP", "1")'
    kept = 'K = os.environ.get("KEPT_{}", "1") != "0"\n'
    files["pkg/brackets.py"] = "import os\nX = " + "(" * 1500 + read + ")" * 1500 + "\n"
    files["pkg/chain.py"] = (
        f"import os\n\nX = {read} != '0'" + " and x" * 2000 + "\n" + kept.format("CHAIN")
    )
    files["pkg/sums.py"] = kept.format("SUMS") + f"import os\n\nX = {read}" + " + x" * 1200 + "\n"
    # Inside a bracket left open, CPython's own parser gives up with MemoryError.
    deep = "(" * 400 + read + ")" * 400
    files["pkg/open.py"] = f"import os\nfor x in (\n    1,\nY = {deep}\n):\n    pass\n"
    # One constant to Python, strings nested in strings to libcst (a RecursionError).
    strings = " ".join(['"a"'] * 3000)
    files["pkg/strings.py"] = f'import os\nX = os.environ.get("DEEP", {strings})\n'
    lines = "\n".join(["    'a'"] * 1000)
    files["pkg/string_lines.py"] = f'import os\nX = os.environ.get("DEEP", (\n{lines}\n))\n'
    write_tree(tmp_path, files)
    done = _knobs("scan", "--format", "json", "--jobs", "2", "--no-cache", "pkg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    data = json.loads(done.stdout.decode("utf-8"))
    # What CPython parses is read, all but the statement nested too deep; what it cannot
    # parse is an error.
    assert _names(data) == [*(f"GOOD_{i:02}" for i in range(30)), "KEPT_CHAIN", "KEPT_SUMS"]
    assert _errors(data) == [
        ("pkg/brackets.py", TOO_DEEP.format(line=2)),
        ("pkg/open.py", TOO_DEEP.format(line=4)),
    ]
    left_out = (
        "knobs scan: note: pkg/{}, line {}: code on lines {}-{} nests more than 200 levels "
        "deep, more than the scanner's parser can take; that statement is left out (a read "
        "in it is not listed) and the rest of the file is read."
    )
    assert done.stderr.decode("utf-8").splitlines() == [
        left_out.format("chain.py", 3, 3, 3),
        left_out.format("string_lines.py", 2, 2, 1003),
        left_out.format("strings.py", 2, 2, 2),
        left_out.format("sums.py", 4, 4, 4),
    ]


def test_nesting_at_the_limit_is_analysed(tmp_path: Path) -> None:
    deep = 'X = os.environ.get("AT_LIMIT", "1") != "0"' + " and x" * (MAX_DEPTH - 10)
    write_tree(tmp_path, {"m.py": "import os\n" + deep + "\n"})
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert result.errors == ()
    assert [k.name for k in result.knobs] == ["AT_LIMIT"]


def _dies_on_bad(task: FileTask, options: Options) -> FileOutcome:
    if task.rel == "bad.py":
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer does
    return process(task, options)


def test_a_worker_that_dies_is_that_files_error_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rels = ["bad.py", *(f"m{i:02}.py" for i in range(30))]
    tasks = []
    for rel in rels:
        (tmp_path / rel).write_text(GOOD.format(name=rel[:-3].upper()))
        tasks.append(FileTask(path=tmp_path / rel, rel=rel, module=rel[:-3], index=WrapperIndex()))
    # The workers are forked, so they run the patched function.
    monkeypatch.setattr(scanner_pool, "process", _dies_on_bad)
    with scanner_pool.Runner(Options(), jobs=2) as runner:
        outcomes = {o.rel: o for o in runner.run(tasks)}
    assert sorted(outcomes) == sorted(rels)
    assert outcomes["bad.py"].error == ScanError("bad.py", scanner_pool.WORKER_DIED)
    assert all(outcomes[r].error is None and outcomes[r].result.sites for r in rels[1:])


def test_a_huge_file_that_kills_its_process_is_its_error_in_a_serial_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = 'import os\n\nON = os.environ.get("{name}", "1") != "0"\n'
    write_tree(tmp_path, {"bad.py": good.format(name="BAD") + "#" * 200 + "\n"})
    write_tree(tmp_path, {"good.py": good.format(name="GOOD"), "big.py": good.format(name="BIG")})
    (tmp_path / "big.py").write_text(good.format(name="BIG") + "#" * 200 + "\n")
    monkeypatch.setattr(scanner_pool, "HUGE_BYTES", 100)
    monkeypatch.setattr(scanner_pool, "process", _dies_on_bad)
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [k.name for k in result.knobs] == ["BIG", "GOOD"]
    assert result.errors == (ScanError("bad.py", scanner_pool.WORKER_DIED),)


# Row: FIFOs and devices: a hang, or a read without bound --------------------------------


def test_fifo_and_device_are_errors_and_nothing_hangs(tmp_path: Path) -> None:
    write_tree(tmp_path, {"good.py": GOOD.format(name="GOOD")})
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    data = _scan_json("--no-cache", ".", cwd=tmp_path)
    assert _names(data) == ["GOOD"]
    assert _errors(data) == [
        ("fifo.py", NOT_REGULAR.format(kind="a FIFO")),
        ("zero.py", NOT_REGULAR.format(kind="a character device")),
    ]


def test_a_device_named_explicitly_with_a_small_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    result = scan([tmp_path / "zero.py"], Settings(max_file_bytes=100), root=tmp_path, jobs=1)
    assert result.errors == (ScanError("zero.py", NOT_REGULAR.format(kind="a character device")),)


def test_a_sourced_shell_file_that_is_a_device_is_not_read(tmp_path: Path) -> None:
    script = '#!/bin/bash\nsource "$(dirname "${BASH_SOURCE[0]}")/env.sh"\necho "${X_ON:-1}"\n'
    write_tree(tmp_path, {"run.sh": script})
    (tmp_path / "env.sh").symlink_to("/dev/zero")
    done = _knobs("scan", "--no-cache", "--format", "json", "run.sh", cwd=tmp_path, timeout=60)
    assert done.returncode == 0
    assert _names(json.loads(done.stdout)) == ["X_ON"]


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*.json") if p.is_file() or p.is_symlink())


@pytest.mark.parametrize("replacement", ["fifo", "device"])
def test_a_cache_entry_replaced_by_a_fifo_or_a_device_is_a_miss_and_heals(
    tmp_path: Path, replacement: str
) -> None:
    tree = write_tree(tmp_path / "tree", {"m.py": GOOD.format(name="CACHED")})
    cache = tmp_path / "cache"
    first = _scan_json("--cache-dir", str(cache), ".", cwd=tree)
    entries = _entries(cache)
    assert entries
    for entry in entries:
        entry.unlink()
        if replacement == "fifo":
            os.mkfifo(entry)
        else:
            entry.symlink_to("/dev/zero")
    assert _scan_json("--cache-dir", str(cache), ".", cwd=tree) == first
    assert all(e.is_file() and not e.is_symlink() for e in _entries(cache))


# Row: unreadable folders, paths too long ------------------------------------------------


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder an unprivileged user can enter (pytest's tmp_path is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="knobs-hardening-"))
    folder.chmod(0o755)
    yield folder
    for path in folder.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(folder)


def test_an_unreadable_folder_is_an_error(shared_tmp: Path) -> None:
    prefix = as_nobody()
    if prefix is None:
        pytest.skip("needs root and setpriv to run the scan as an unprivileged user")
    write_tree(shared_tmp, {"good.py": GOOD.format(name="GOOD"), "locked/in.py": GOOD})
    for path in [shared_tmp, *shared_tmp.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (shared_tmp / "locked").chmod(0)
    program = (
        "from scanner import scan; "
        f"r = scan([{str(shared_tmp)!r}], root={str(shared_tmp)!r}, jobs=1); "
        "print([k.name for k in r.knobs]); print(r.errors)"
    )
    done = subprocess.run(
        [*prefix, sys.executable, "-c", program],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    message = "Cannot read the folder: Permission denied; its files are not scanned."
    assert done.stdout == ("['GOOD']\n" + repr((ScanError("locked", message),)) + "\n")


def test_a_path_over_the_system_limit_is_an_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"good.py": GOOD.format(name="GOOD")})
    name = "d" * 250
    fd = os.open(tmp_path, os.O_RDONLY)
    depth = 0
    try:
        while len(str(tmp_path)) + depth * (len(name) + 1) < 4200:
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
            depth += 1
        out = os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, GOOD.format(name="TOO_DEEP").encode())
        os.close(out)
    finally:
        os.close(fd)
    result = scan([tmp_path], root=tmp_path, jobs=1)
    assert [k.name for k in result.knobs] == ["GOOD"]
    assert len(result.errors) == 1
    (error,) = result.errors
    assert error.path.startswith(name + "/") and error.path.count("/") < depth
    assert error.message == "Cannot read the folder: File name too long; its files are not scanned."


# Row: UTF-16 with a byte-order mark -------------------------------------------------------


def test_a_utf16_file_is_an_error(tmp_path: Path) -> None:
    source = GOOD.format(name="WIDE")
    write_tree(
        tmp_path,
        {"wide.py": source.encode("utf-16"), "wide.yaml": "a: ${WIDE:1}\n".encode("utf-16")},
    )
    result = scan([tmp_path], root=tmp_path, jobs=1)
    message = (
        "The file is UTF-16 (it starts with a UTF-16 byte-order mark), an encoding that is "
        "not supported (Python source must be ASCII-compatible); convert it to UTF-8."
    )
    assert result.knobs == ()
    assert result.errors == (ScanError("wide.py", message), ScanError("wide.yaml", message))


# Row: file names that are not UTF-8 -------------------------------------------------------


def test_a_file_name_that_is_not_utf8_is_escaped_in_valid_json(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    folder = tree / os.fsdecode(b"caf\xe9")  # surrogate-escaped, as Python names it
    folder.mkdir()
    (folder / os.fsdecode(b"m\xff.py")).write_text(GOOD.format(name="LATIN"))
    for cache in ("--no-cache", f"--cache-dir={tmp_path / 'cache'}"):
        done = _knobs("scan", "--format", "json", cache, ".", cwd=tree)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout.decode("utf-8"))  # strict: valid UTF-8
        (knob,) = data["knobs"]
        assert knob["sites"][0]["path"] == "caf\\xe9/m\\xff.py"
        table = _knobs("scan", cache, ".", cwd=tree)
        assert "caf\\xe9/m\\xff.py" in table.stdout.decode("utf-8")


# Row: a forged cache entry ----------------------------------------------------------------


def _forge(entry: Path, payload: bytes) -> None:
    checksum = hashlib.blake2b(payload, digest_size=16).hexdigest().encode()
    entry.write_bytes(checksum + b"\n" + payload)


@pytest.mark.parametrize("forgery", ["deep", "default-list", "wrong-shape"])
def test_a_forged_cache_entry_is_a_miss_and_is_overwritten(tmp_path: Path, forgery: str) -> None:
    tree = write_tree(tmp_path / "tree", {"m.py": GOOD.format(name="FORGED")})
    cache = tmp_path / "cache"
    first = _scan_json("--cache-dir", str(cache), ".", cwd=tree)
    # Each file's own entries. The whole scan's entry (stored when the files are old enough
    # to trust their times: a slow run) is removed, so that the next scans read them.
    entries = []
    for entry in _entries(cache):
        payload = json.loads(entry.read_bytes().partition(b"\n")[2])
        if "outcomes" in payload:
            entry.unlink()
        elif "sites" in payload:
            entries.append(entry)
    assert entries
    for entry in entries:
        stored = json.loads(entry.read_bytes().partition(b"\n")[2])
        if forgery == "deep":
            payload = b"[" * 200_000 + b"]" * 200_000
        elif forgery == "default-list":
            stored["sites"][0]["default"] = []
            payload = json.dumps(stored).encode()
        else:
            stored["sites"] = [[{"nested": [[[[[1]]]]]}]]
            payload = json.dumps(stored).encode()
        _forge(entry, payload)
    for _ in range(2):  # the second run reads what the first wrote back
        assert _scan_json("--cache-dir", str(cache), ".", cwd=tree) == first
    for entry in entries:
        raw = entry.read_bytes()
        checksum, _, payload = raw.partition(b"\n")
        assert hashlib.blake2b(payload, digest_size=16).hexdigest().encode() == checksum
        assert json.loads(payload)["sites"][0]["default"] == "1"


# Row: a scan path outside the tree --------------------------------------------------------


def test_a_path_outside_the_current_folder_is_scanned_with_a_note(tmp_path: Path) -> None:
    write_tree(tmp_path, {"other/m.py": GOOD.format(name="OUTSIDE"), "here/keep": ""})
    done = _knobs("scan", "--no-cache", "--format", "json", "../other", cwd=tmp_path / "here")
    assert done.returncode == 0
    assert done.stderr.decode() == (
        "knobs scan: note: ../other lies outside the current folder: its files are "
        "scanned, and their paths start with '..'.\n"
    )
    (knob,) = json.loads(done.stdout)["knobs"]
    assert knob["sites"][0]["path"] == "../other/m.py"
    # init and check (PATHS, or the registry's scan.paths) say so too.
    here = tmp_path / "here"
    done = _knobs("init", "../other", cwd=here)
    assert (done.returncode, done.stderr.decode()) == (
        0,
        "knobs init: note: ../other lies outside the current folder: its files are "
        "scanned, and their paths start with '..'.\n",
    )
    text = (here / "registry.yaml").read_text(encoding="utf-8")
    assert 'scan:\n  paths:\n    - "../other"\n' in text
    done = _knobs("check", cwd=here)
    assert (done.returncode, done.stderr.decode()) == (
        0,
        "knobs check: note: ../other lies outside the current folder: its files are "
        "scanned, and their paths start with '..'.\n",
    )
    # A link in the current folder to a folder outside it.
    (here / "linked").symlink_to(tmp_path / "other")
    done = _knobs("scan", "--no-cache", "linked", cwd=here)
    assert (done.returncode, done.stderr.decode()) == (
        0,
        f"knobs scan: note: linked is a link to {tmp_path.resolve() / 'other'}, outside the "
        "current folder: its files are scanned.\n",
    )


def test_a_lone_surrogate_in_the_code_is_escaped_in_json(tmp_path: Path) -> None:
    # Python code may hold one; UTF-8 cannot, so JSON output escapes it (issue 18).
    write_tree(tmp_path, {"m.py": 'import os\nX = os.environ.get("SUR", "\\ud800") == "1"\n'})
    done = _knobs("scan", "--format", "json", "--no-cache", ".", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b'"default": "\\ud800"' in done.stdout
    data = json.loads(done.stdout.decode("utf-8"))
    assert data["knobs"][0]["sites"][0]["default"] == "\ud800"


def test_a_cache_that_cannot_be_written_changes_nothing_but_the_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outcome keeps what the file learnt from others (which a warm scan checks)."""
    write_tree(
        tmp_path,
        {
            "consts.py": 'NAME = "TOY_KNOB"\n',
            "use.py": """
                import os
                from consts import NAME


                def on():
                    return os.environ.get(NAME, "1") != "0"
            """,
        },
    )
    task = FileTask(path=tmp_path / "use.py", rel="use.py", module="use", index=WrapperIndex())
    uncached = process(task, Options())

    def refuse(*_: object) -> None:
        raise CacheError("no space left on device")

    monkeypatch.setattr(Cache, "put", refuse)
    outcome = process(task, Options(cache_dir=tmp_path / "cache"))
    assert uncached.depends == (("consts.py", uncached.depends[0][1]),)
    assert outcome == replace(uncached, cache_problem="no space left on device")


def test_init_then_check_is_green_on_a_file_that_nests_too_deep(tmp_path: Path) -> None:
    # unsloth 2026.10.9 unsloth/models/rl.py:2838: code built from some 270 string
    # literals in a row (libcst nests each in the next), and reads after it.
    literals = "".join(f'            "    x_{i} = {i}\\n"\n' for i in range(260))
    source = (
        "import os\n\n\ndef build(source):\n"
        '    check = ""\n'
        '    if "max_length" in source:\n'
        f"        check += (\n{literals}        )\n"
        '    if os.environ.get("UNSLOTH_FUSED_LINEAR", "1") == "0":\n'
        "        return None\n"
        "    return check\n"
    )
    write_tree(tmp_path, {"pkg/rl.py": source})
    init = _knobs("init", ".", cwd=tmp_path)
    assert init.returncode == 0, init.stderr.decode("utf-8", "replace")
    assert "UNSLOTH_FUSED_LINEAR:" in (tmp_path / "registry.yaml").read_text("utf-8")
    check = _knobs("check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()
    assert b"KNB007" not in check.stdout
    assert (
        b"knobs check: note: pkg/rl.py, line 7: code on lines 7-268 nests more than 200 levels"
        in check.stderr
    )
