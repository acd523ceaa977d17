"""What the runs of a sweep killed with SIGKILL left running, stopped when it is resumed.

A run is a process group of its own, led by the process triage started. As it starts,
the journal records that leader: its pid, its start time (field 22 of /proc/PID/stat),
its group, the boot it runs in, and an HMAC of these with the user's key (seal.py). On
resume, a group is stopped only when its record verifies and its leader is still that
process: alive, with the same start time in the same boot, leading the same group. So a
pid the system has since given to another program is never hit, and neither is a
process triage did not start, whatever folder it works in. The groups of triage itself
and of its parent (the shell it was started from) are never stopped. A group whose
leader has exited cannot be told from another, and is left alone.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass

from knobregistry._io import procfs
from knobregistry.triage.runner import TERMINATE_GRACE_S


@dataclass(frozen=True, slots=True, kw_only=True)
class Started:
    """A run's leader, as journaled when it started."""

    number: int  # of the setting
    index: int  # of the run
    pid: int
    start: int  # clock ticks after boot (procfs.start_time)
    group: int
    boot: str  # procfs.boot_id
    mac: str | None  # None: no key to seal it with, so a resume never stops it


@dataclass(frozen=True, slots=True)
class Leftovers:
    """What a resume did with the runs an interrupted sweep left running."""

    stopped: tuple[int, ...]  # their process groups, stopped
    unverified: tuple[int, ...]  # groups led by a journaled process, whose record is not sealed


def stop(
    runs: Iterable[Started], sealed: Callable[[Started], bool], grace_s: float = TERMINATE_GRACE_S
) -> Leftovers:
    """Stop the groups of ``runs`` still led by the process journaled, when ``sealed``
    verifies the record: SIGTERM, then SIGKILL after ``grace_s``. Linux only (/proc)."""
    boot, spared = procfs.boot_id(), _own_groups()
    stopping: list[tuple[Started, list[tuple[int, int]]]] = []
    unverified: set[int] = set()
    for run in runs:
        if boot is None or run.boot != boot or run.group in spared or not _leads(run):
            continue
        if not sealed(run):
            unverified.add(run.group)
            continue
        members = _members(run.group)  # taken while the leader vouches for the group
        with suppress(OSError):
            os.killpg(run.group, signal.SIGTERM)
        stopping.append((run, members))
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(
        _running(pid, start) for _, members in stopping for pid, start in members
    ):
        time.sleep(0.05)
    for run, members in stopping:
        if _leads(run):
            with suppress(OSError):
                os.killpg(run.group, signal.SIGKILL)
            continue
        for pid, start in members:  # the leader exited: each member that is still itself
            if _running(pid, start):
                with suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    stopped = {run.group for run, _ in stopping}
    return Leftovers(tuple(sorted(stopped)), tuple(sorted(unverified - stopped)))


def _own_groups() -> set[int]:
    """The groups never stopped: triage's own, its parent's, and the system's first ones."""
    groups = {0, 1, os.getpgrp()}
    with suppress(OSError):
        groups.add(os.getpgid(os.getppid()))
    return groups


def _leads(run: Started) -> bool:
    """Whether ``run``'s leader is still that process, leading its group (an exited
    leader that nobody has reaped yet counts: its pid cannot have been reused)."""
    return procfs.start_time(run.pid) == run.start and _group(run.pid) == run.group == run.pid


def _members(group: int) -> list[tuple[int, int]]:
    """The processes in ``group``, each with its start time."""
    found: list[tuple[int, int]] = []
    for pid in procfs.pids() or ():
        start = procfs.start_time(pid)
        if start is not None and _group(pid) == group:
            found.append((pid, start))
    return found


def _running(pid: int, start: int) -> bool:
    return procfs.start_time(pid) == start and procfs.alive(pid)


def _group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None
