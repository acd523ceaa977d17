"""Which temporary files a write removes beside its target: only those a write of knobs made
and left (its process killed with SIGKILL), never anything else (the stray-file rule of
issue 41: `atomic._remove_strays` deleted any `.NAME.<dead pid>.*.tmp`, whoever made it).

A temporary of knobs is named `.NAME.knobs-PID-START.XXXXXXXX.tmp`: the process that made it
and when that process started (field 22 of /proc/PID/stat), so that a pid the system gave
to another process since is told apart. It is removed only when it is a regular file (a
link is never followed, nor removed), of one link, owned by this user, and its process is
gone; nothing else beside the target is touched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from knobregistry._io import procfs
from knobregistry._io.atomic import write_atomic


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert not procfs.alive(done.pid)
    return done.pid


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _stray(folder: Path, pid: int, start: int, name: str = "env.sh") -> Path:
    path = folder / f".{name}.knobs-{pid}-{start}.a1B2c3_d.tmp"
    path.write_text("half\n")
    return path


def test_the_name_says_knobs_the_pid_and_its_start(tmp_path: Path) -> None:
    from knobregistry._io.atomic import temporary_prefix

    start = procfs.start_time(os.getpid())
    assert temporary_prefix(tmp_path / "env.sh") == f".env.sh.knobs-{os.getpid()}-{start}."


def test_a_stray_of_a_killed_write_is_removed(tmp_path: Path) -> None:
    stray = _stray(tmp_path, _dead_pid(), 12345)
    write_atomic(tmp_path / "env.sh", "new\n")
    assert not stray.exists()
    assert _names(tmp_path) == ["env.sh"]


def test_a_pid_given_to_another_process_since_is_told_apart(tmp_path: Path) -> None:
    start = procfs.start_time(os.getpid())
    assert start is not None
    reused = _stray(tmp_path, os.getpid(), start - 1)  # this pid, an earlier process
    busy = _stray(tmp_path, os.getpid(), start)  # this very process: a write in progress
    write_atomic(tmp_path / "env.sh", "new\n")
    assert not reused.exists()
    assert busy.exists()


@pytest.mark.parametrize(
    "name",
    [
        ".env.sh.{pid}.a1B2c3_d.tmp",  # the old shape: any tool's tempfile beside the file
        ".env.sh.knobs-{pid}-1.notes.txt",
        ".env.sh.knobs-{pid}.a1B2c3_d.tmp",
        ".env.sh.knobs-x-1.a1B2c3_d.tmp",
        ".other.knobs-{pid}-1.a1B2c3_d.tmp",
    ],
)
def test_what_knobs_did_not_name_is_never_touched(tmp_path: Path, name: str) -> None:
    theirs = tmp_path / name.format(pid=_dead_pid())
    theirs.write_text("someone else's\n")
    write_atomic(tmp_path / "env.sh", "new\n")
    assert theirs.read_text() == "someone else's\n"


def test_a_link_is_never_followed_nor_removed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    link = tmp_path / f".env.sh.knobs-{_dead_pid()}-1.a1B2c3_d.tmp"
    link.symlink_to(victim)
    write_atomic(tmp_path / "env.sh", "new\n")
    assert link.is_symlink() and victim.read_text() == "keep\n"


def test_a_hard_link_to_another_file_is_left(tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text("keep\n")
    linked = tmp_path / f".env.sh.knobs-{_dead_pid()}-1.a1B2c3_d.tmp"
    os.link(mine, linked)
    write_atomic(tmp_path / "env.sh", "new\n")
    assert linked.exists() and mine.read_text() == "keep\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_another_users_file_is_left(tmp_path: Path) -> None:
    theirs = _stray(tmp_path, _dead_pid(), 1)
    os.chown(theirs, 65534, 65534)
    write_atomic(tmp_path / "env.sh", "new\n")
    assert theirs.exists()
