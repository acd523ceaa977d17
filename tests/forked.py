"""Running `knobs` in a child forked from the test process: the click entry point of the
command line (knobregistry.cli.main), without paying for a new interpreter and its imports.

The child is a process of its own, as `python -m knobregistry` is: its folder, environment,
sys.path, imported modules and caches go with it. What it inherits from the test process
is made fresh first: every functools cache of knobregistry and scanner is cleared, and the
modules that a folder on ``path`` provides are dropped, so that they are imported from it
(as a folder on PYTHONPATH would be found first). Fixit runs its rules' examples
in-process the same way; a few tests keep running the real command (tests.conftest.run_knobs).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import select
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO, NoReturn

import click

from tests.conftest import CLI_ENV

# Exit status of a child that failed before the command could report (EX_SOFTWARE).
CHILD_FAILED = 70
HANG_GUARD_S = 120  # a child that hangs fails its test instead of blocking the suite
# The packages whose modules a child imports that the test process then imports too, so
# that the next child finds them imported (as LibCST's runner warms the parser before it
# forks): the command line's own and its dependencies', never a project's stand-ins.
WARMED = frozenset({"knobregistry", "scanner", "libcst", "rich", "click", "yaml"})


def run_forked(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, path: Sequence[Path] = ()
) -> subprocess.CompletedProcess[str]:
    """`python -m knobregistry ARGS` in ``cwd``, with ``env`` added to the environment (and,
    as run_knobs does, COLUMNS=120, NO_COLOR=1, TERM=dumb) and ``path`` first on sys.path."""
    from knobregistry.cli import main  # imported here, so that every child finds it imported

    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryFile() as imported,
    ):
        pid = os.fork()
        if pid == 0:  # the child: never returns
            _child(main, list(args), cwd, env or {}, path, (out, err, imported))
        status = _wait(pid)
        for stream in (out, err, imported):
            stream.seek(0)
        _import(imported.read().decode("utf-8").split())
        return subprocess.CompletedProcess(
            [sys.executable, "-m", "knobregistry", *args],
            os.waitstatus_to_exitcode(status),
            out.read().decode("utf-8"),
            err.read().decode("utf-8"),
        )


def _wait(pid: int) -> int:
    """The child's wait status; a child that hangs is killed after HANG_GUARD_S, and the
    test fails instead of blocking the suite (nothing is timed)."""
    fd = os.pidfd_open(pid)  # readable once the child has exited
    try:
        ready, _, _ = select.select([fd], [], [], HANG_GUARD_S)
    finally:
        os.close(fd)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise AssertionError(f"`knobs` in a forked child did not end in {HANG_GUARD_S} s")
    return os.waitpid(pid, 0)[1]


def _child(
    command: click.Group,
    args: list[str],
    cwd: Path,
    env: Mapping[str, str],
    path: Sequence[Path],
    files: tuple[BinaryIO, BinaryIO, BinaryIO],
) -> NoReturn:
    out, err, imported = files
    code = CHILD_FAILED
    before = set(sys.modules)
    try:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8")
        os.chdir(cwd)
        os.environ.update(CLI_ENV)
        os.environ.pop("FORCE_COLOR", None)
        os.environ.update(env)  # after, as run_knobs: a test may set any of them
        _fresh(path)
        try:
            command.main(args=args, prog_name="python -m knobregistry")
            code = 0
        except SystemExit as done:
            code = _exit_status(done.code)
    except BaseException:  # a failure of the child itself, shown as a traceback
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                code = CHILD_FAILED
        new = [m for m in set(sys.modules) - before if m.partition(".")[0] in WARMED]
        imported.write(" ".join(sorted(new)).encode("utf-8"))
        imported.flush()
        os._exit(code)


def _import(names: Sequence[str]) -> None:
    """Import what a child imported of WARMED, so that the next child need not."""
    for name in names:
        if name not in sys.modules:
            with contextlib.suppress(Exception):  # a module the child's run made: not ours
                importlib.import_module(name)


def _fresh(path: Sequence[Path]) -> None:
    """Clear the caches a fresh process would not have, and put ``path`` first."""
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in ("knobregistry", "scanner") and module is not None:
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear) and getattr(value, "__module__", None) == name:
                    clear()
    for folder in path:
        provided = {entry.stem for entry in folder.iterdir() if _is_module(entry)}
        for name in [m for m in sys.modules if m.partition(".")[0] in provided]:
            del sys.modules[name]
    sys.path[:0] = [str(folder) for folder in path]
    importlib.invalidate_caches()


def _is_module(entry: Path) -> bool:
    return (entry.is_dir() and (entry / "__init__.py").exists()) or entry.suffix == ".py"


def _exit_status(code: object) -> int:
    """The status `sys.exit(code)` gives a process."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
