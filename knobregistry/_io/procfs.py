"""What Linux's /proc says of the processes on this machine (nothing where it has none)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True, slots=True)
class ProcessState:
    """A process's state letter (`R`, `S`, `Z` ...) and its parent's id."""

    state: str
    parent: int

    @property
    def zombie(self) -> bool:
        return self.state == "Z"


def pids() -> list[int] | None:
    """The ids of every process; None where /proc cannot be read."""
    try:
        return [int(entry.name) for entry in PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return None


def state(pid: int) -> ProcessState | None:
    """``pid``'s state and parent; None when it is gone (or there is no /proc)."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        return ProcessState(state=fields[0], parent=int(fields[1]))
    except (OSError, IndexError, ValueError):
        return None


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to reap it counts as gone)."""
    found = state(pid)
    return found is not None and not found.zombie


def start_time(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks after boot (field 22 of /proc/PID/stat): with the
    pid, it names one process, never a later one given the same pid; None when it is gone."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[19])  # the fields after the name start at field 3
    except (OSError, IndexError, ValueError):
        return None


def boot_id() -> str | None:
    """This boot of this machine's kernel (a start time counts from it); None where unknown."""
    try:
        return (PROC / "sys" / "kernel" / "random" / "boot_id").read_text().strip() or None
    except OSError:
        return None


def command_line(pid: int) -> list[str] | None:
    """``pid``'s command line, word by word; None when it is gone or hidden."""
    try:
        data = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    words = data.decode("utf-8", "replace").split("\0")
    return words[:-1] if words and not words[-1] else words or None


def flock_holders(device: int, inode: int) -> list[int]:
    """The processes that hold a flock on the file (``device``, ``inode``), by
    /proc/locks; none where it cannot be read, or shows no process id."""
    try:
        lines = (PROC / "locks").read_text().splitlines()
    except OSError:
        return []
    wanted = f"{os.major(device):02x}:{os.minor(device):02x}:{inode}"
    # `1: FLOCK  ADVISORY  WRITE 4242 fe:00:2475911 0 EOF`; a waiter's line has `->`.
    return [
        int(fields[4])
        for fields in (line.split() for line in lines)
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == wanted and fields[4].isdigit()
    ]
