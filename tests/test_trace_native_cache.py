"""The getenv interposer kept in the cache is preloaded into a traced program only when it is
the library knobs built, in a folder only this user can write (row 8 of issue 41).

A library truncated (to 0 bytes, or half) is rebuilt, never preloaded and reported as
traced; one in a folder that another user can write, or owns, is not preloaded at all, and
the C level is skipped, saying why and how to fix it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from knobregistry.trace.model import Level
from knobregistry.trace.native import FOLDER, library_name, native_level
from knobregistry.trace.records import collect
from knobregistry.trace.session import HOOK, traced_environment
from tests.test_trace_hardening import HANG_GUARD_S, needs_compiler

pytestmark = needs_compiler

GETENV = """
import ctypes
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
libc.getenv(b"APP_NATIVE")
"""


def _c_reads(tmp_path: Path, library: Path | None) -> list[str]:
    """The names a program read through C getenv, traced with ``library`` preloaded."""
    hook, records = tmp_path / "hook", tmp_path / "records"
    hook.mkdir()
    records.mkdir()
    shutil.copyfile(HOOK, hook / "sitecustomize.py")
    from knobregistry.trace.native import NativeLevel

    environment = traced_environment(
        {**os.environ, "APP_NATIVE": "1"}, hook, records, NativeLevel(library)
    )
    done = subprocess.run(
        [sys.executable, "-c", GETENV], env=environment, capture_output=True, timeout=HANG_GUARD_S
    )
    assert done.returncode == 0, done.stderr
    return sorted({r.name for r in collect(records).reads if r.level is Level.C} & {"APP_NATIVE"})


def _built(cache: Path) -> Path:
    level = native_level(cache)
    assert level.library is not None, level.skipped
    return level.library


@pytest.mark.parametrize("keep", [0, 0.5], ids=["empty", "half"])
def test_a_truncated_library_is_rebuilt(tmp_path: Path, keep: float) -> None:
    cache = tmp_path / "cache"
    library = _built(cache)
    whole = library.read_bytes()
    library.write_bytes(whole[: int(len(whole) * keep)])
    again = _built(cache)
    assert _c_reads(tmp_path, again) == ["APP_NATIVE"]


def test_a_library_knobs_did_not_build_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / FOLDER).mkdir(parents=True, mode=0o700)
    planted = cache / FOLDER / library_name()
    shutil.copyfile("/bin/true", planted)  # an ELF file, not the interposer
    library = _built(cache)
    assert library.read_bytes() != Path("/bin/true").read_bytes()
    assert _c_reads(tmp_path, library) == ["APP_NATIVE"]


def _skipped(cache: Path) -> str:
    level = native_level(cache)
    assert level.library is None
    assert level.skipped is not None
    return level.skipped


def test_a_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    library = _built(cache)
    library.parent.chmod(0o777)
    folder = library.parent.as_posix()
    assert _skipped(cache) == (
        f"the getenv interposer is not loaded from {folder}: other users can write in it "
        f"(mode 0777); make it private (chmod go-w {folder}), or set KNOBS_CACHE_DIR to a "
        "folder of your own"
    )


def test_a_folder_above_it_everyone_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # no sticky bit: anyone can rename what is in it
    assert _skipped(shared / "cache") == (
        f"the getenv interposer is not loaded from {(shared / 'cache' / FOLDER).as_posix()}: "
        f"other users can write in {shared.as_posix()} (mode 0777); make it private (chmod "
        f"go-w {shared.as_posix()}), or set KNOBS_CACHE_DIR to a folder of your own"
    )


def test_a_sticky_folder_such_as_tmp_is_fine(tmp_path: Path) -> None:
    shared = tmp_path / "sticky"
    shared.mkdir()
    shared.chmod(0o1777)
    assert native_level(shared / "cache").library is not None


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (cache / FOLDER).mkdir(parents=True, mode=0o700)
    os.chown(cache / FOLDER, 65534, 65534)
    folder = (cache / FOLDER).as_posix()
    assert _skipped(cache) == (
        f"the getenv interposer is not loaded from {folder}: it belongs to another user "
        f"(uid 65534); make it private (chmod go-w {folder}), or set KNOBS_CACHE_DIR to a "
        "folder of your own"
    )


def test_the_folder_is_made_private(tmp_path: Path) -> None:
    library = _built(tmp_path / "cache")
    assert library.parent.stat().st_mode & 0o777 == 0o700
    assert library.stat().st_mode & 0o022 == 0
