"""Shared helpers: real files on disk, real subprocesses."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.slurm_cluster import Cluster, ClusterUnavailable, start

REPO = Path(__file__).resolve().parent.parent
# A git that commits the same way on any machine: fixed author, dates, no user config.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Knobs Test",
    "GIT_AUTHOR_EMAIL": "knobs@example.com",
    "GIT_COMMITTER_NAME": "Knobs Test",
    "GIT_COMMITTER_EMAIL": "knobs@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


# Hypothesis's own clocks (a deadline per example, a health check on slow draws) are timed
# assertions: on a loaded machine they fail a test whose every answer was right. The suite
# asserts results; speed is for benchmarks/.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (path -> text, dedented, or raw bytes) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


# What every `knobs` a test runs sees: a fixed width, no colour (FORCE_COLOR removed).
# KNOBS_PROGRESS_SECONDS: piped, a scan that takes seconds prints its count on stderr now
# and then; on a loaded machine a test's small scan can, so the tests ask for none (the
# progress tests set it).
CLI_ENV = {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb", "KNOBS_PROGRESS_SECONDS": "86400"}


def run_knobs(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `knobs` command line in a subprocess."""
    environment = {**os.environ, **CLI_ENV}
    environment.pop("FORCE_COLOR", None)
    if env:
        environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "knobregistry", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: three workers for every two cores. About a third of the suite's time is
    spent waiting, not computing (on the `knobs` and training runs a test starts, Slurm's
    scheduler, a browser, the disk), and with a worker per core that time left a core idle."""
    return max(2, len(os.sched_getaffinity(0)) * 3 // 2)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow first, the rest in the order collected: pytest-xdist hands each
    worker a run of this order and a worker that runs out steals from the end of another's,
    so a slow test collected late (the README's fresh clone, minutes) ran alone at the end
    while the other core had nothing left to do."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Scans run by the tests (and their subprocesses) cache in a folder of their own."""
    saved = os.environ.get("KNOBS_CACHE_DIR")
    os.environ["KNOBS_CACHE_DIR"] = str(tmp_path_factory.mktemp("knobs-cache"))
    yield
    if saved is None:
        os.environ.pop("KNOBS_CACHE_DIR", None)
    else:
        os.environ["KNOBS_CACHE_DIR"] = saved


def as_nobody() -> list[str] | None:
    """The prefix that runs a command as an unprivileged user (whom file permissions
    bind; root is not), when this machine allows it: root, setpriv, and this checkout's
    Python readable by others (a clone in a private temporary folder is not)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        return None
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", "import knobregistry, scanner"],
        cwd=REPO,
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return prefix if probe.returncode == 0 else None


@pytest.fixture(scope="session")
def slurm_cluster() -> Iterator[Cluster]:
    """A one-node Slurm cluster of this machine (tests/slurm_cluster.py), for the session;
    the test is skipped, with the reason, where it cannot be installed or started."""
    folder = Path(tempfile.mkdtemp(prefix="knobs-tests-slurm-"))  # not pytest's: munge must see it
    try:
        cluster = start(folder)
    except ClusterUnavailable as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"no Slurm cluster: {exc}")
    yield cluster
    cluster.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture()
def stopped_at_end() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts, stopped (and reaped) however the test ends."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
