"""A one-node Slurm cluster of this machine, for the tests: munged, slurmctld and slurmd.

Everything lives in one temporary folder: munge's key, socket and logs, the
generated slurm.conf, the daemons' state, spool, pid and log files. The daemons
listen on free ports and munge on its own socket, so that the cluster is private
to the test session (another on the same machine does not see it). Clients find
it through SLURM_CONF. Debian's `slurm-wlm` and `munge` are installed with apt-get
when missing (as root); when that cannot be done, `start` says why, and the tests
that need the cluster are skipped with that reason.
"""

from __future__ import annotations

import os
import pwd
import signal
import socket
import subprocess
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from knobregistry._io.procfs import alive
from tests import apt

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "scontrol", "sinfo")
START_TIMEOUT_S = 30


class ClusterUnavailable(Exception):
    """The cluster cannot be had here; the message says why (the tests' skip reason)."""


@dataclass(frozen=True)
class Cluster:
    """A running cluster: its folder, its config, and the environment its clients need."""

    folder: Path
    conf: Path

    @property
    def env(self) -> dict[str, str]:
        return {"SLURM_CONF": str(self.conf)}

    def client(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args),
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def jobs(self) -> list[str]:
        """Every job in the queue (pending, running or completing): `ID NAME STATE`."""
        done = self.client("squeue", "--noheader", "--format=%i %j %T")
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    def stop(self) -> None:
        """Cancel every job, stop the daemons by their pid files, and wait for them to go.

        The three are signalled at once: each takes a second or two to shut down, and
        one after the other they took five."""
        self.client("scancel", "--user=root")
        _stop_pid_files(
            [self.folder / f"{name}.pid" for name in ("slurmd", "slurmctld", "munge/munged")]
        )


def start(folder: Path) -> Cluster:
    """Install the packages if need be, then start a cluster in ``folder``.

    Raises ClusterUnavailable with the reason when it cannot.
    """
    if os.geteuid() != 0:
        raise ClusterUnavailable("the test cluster runs its daemons as root; run the tests as root")
    install()
    folder.chmod(0o755)  # munged wants the socket's path searchable by all
    munge = folder / "munge"
    munge.mkdir(mode=0o755)
    key = munge / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    user = pwd.getpwnam("munge")
    for path in (munge, key):
        os.chown(path, user.pw_uid, user.pw_gid)
    _daemon(
        ["runuser", "-u", "munge", "--", "munged", f"--key-file={key}",
         f"--socket={munge / 'munge.socket'}", f"--pid-file={munge / 'munged.pid'}",
         f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}"],
        munge / "munged.log",
    )  # fmt: skip
    conf = folder / "slurm.conf"
    conf.write_text(_config(folder, munge / "munge.socket"), encoding="utf-8")
    cluster = Cluster(folder, conf)
    try:
        _daemon(["slurmctld", "-f", str(conf)], folder / "slurmctld.log")
        _daemon(["slurmd", "-f", str(conf)], folder / "slurmd.log")
        _wait_idle(cluster)
    except ClusterUnavailable:
        cluster.stop()
        raise
    return cluster


def install() -> None:
    """Install Slurm and munge with apt-get when any of their commands is missing."""
    try:
        apt.install(PACKAGES, (*DAEMONS, *CLIENTS), "Slurm")
    except apt.Unavailable as exc:
        raise ClusterUnavailable(str(exc)) from None


def _config(folder: Path, munge_socket: Path) -> str:
    host = socket.gethostname().split(".")[0]
    memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 // 2
    controller, node = _free_ports(2)
    return "\n".join(
        [
            "ClusterName=knobs-tests",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={controller}",
            f"SlurmdPort={node}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={munge_socket}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "ReturnToService=2",
            "MpiDefault=none",
            "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0",
            f"StateSaveLocation={folder / 'state'}",
            f"SlurmdSpoolDir={folder / 'spool'}",
            f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
            f"SlurmdPidFile={folder / 'slurmd.pid'}",
            f"SlurmctldLogFile={folder / 'slurmctld.log'}",
            f"SlurmdLogFile={folder / 'slurmd.log'}",
            f"NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} "
            f"RealMemory={memory_mb} State=UNKNOWN",
            f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _daemon(command: list[str], log: Path) -> None:
    """Start a daemon that forks into the background; ClusterUnavailable if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        said = (done.stderr + done.stdout).strip() or _tail(log)
        raise ClusterUnavailable(f"`{command[0]}` did not start: {said}")


def _wait_idle(cluster: Cluster) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        done = cluster.client("sinfo", "--noheader", "--format=%T")
        if done.returncode == 0 and done.stdout.strip() == "idle":
            return
        time.sleep(0.25)
    raise ClusterUnavailable(
        f"the node was not idle after {START_TIMEOUT_S} s; slurmd's log ends: "
        f"{_tail(cluster.folder / 'slurmd.log')}; slurmctld's: "
        f"{_tail(cluster.folder / 'slurmctld.log')}"
    )


def _tail(log: Path) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
    except OSError:
        return "(no log)"


def _stop_pid_files(paths: list[Path]) -> None:
    """SIGTERM every daemon named by a pid file; SIGKILL those alive after 10 s."""
    pids = []
    for path in paths:
        try:
            pid = int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
            pids.append(pid)
    deadline = time.monotonic() + 10
    while pids and time.monotonic() < deadline:
        pids = [pid for pid in pids if alive(pid)]
        time.sleep(0.05)
    for pid in pids:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
