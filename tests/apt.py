"""Debian packages a test needs and this machine lacks, installed with apt-get (as root).

Slurm's daemons and the docs site's headless Chromium are not on a fresh machine; the
tests that need them install them here. The test workers run at once, and dpkg takes one
installer at a time, so installs hold a lock file shared by every worker.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

INSTALL_TIMEOUT_S = 300
LOCK = Path(tempfile.gettempdir()) / "knobs-tests-apt.lock"


class Unavailable(Exception):
    """The packages cannot be installed here; the message says why (a skip reason)."""


def install(packages: Sequence[str], commands: Sequence[str], what: str) -> None:
    """Install ``packages`` when any of ``commands`` is missing from PATH; ``what`` names
    them in messages ("Slurm"). Raises Unavailable, saying why, when that cannot be done."""
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        missing = [name for name in commands if shutil.which(name) is None]
        if not missing:
            return
        if shutil.which("apt-get") is None:
            raise Unavailable(
                f"{what} is not installed ({', '.join(missing)} missing) and there is no "
                f"apt-get to install {' and '.join(packages)}"
            )
        if os.geteuid() != 0:
            raise Unavailable(
                f"{what} is not installed ({', '.join(missing)} missing); as root, apt-get "
                f"would install {' and '.join(packages)}"
            )
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (
            ["apt-get", "update"],
            ["apt-get", "install", "-y", "--no-install-recommends", *packages],
        ):
            try:
                done = subprocess.run(
                    command, env=env, capture_output=True, text=True,
                    timeout=INSTALL_TIMEOUT_S, check=False,
                )  # fmt: skip
            except subprocess.TimeoutExpired:
                raise Unavailable(
                    f"`{' '.join(command)}` took more than {INSTALL_TIMEOUT_S} s"
                ) from None
            if done.returncode != 0:
                said = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
                raise Unavailable(
                    f"`{' '.join(command)}` failed with status {done.returncode}: {said}"
                )
