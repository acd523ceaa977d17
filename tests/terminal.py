"""Running a command with its standard error (or output) on a pseudo-terminal, as a user
sees it."""

from __future__ import annotations

import os
import pty
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Literal


def on_a_terminal(
    command: list[str],
    cwd: Path,
    env: Mapping[str, str],
    terminal: Literal["stdout", "stderr"] = "stderr",
) -> tuple[int, str, str]:
    """Run ``command`` with ``terminal`` (standard error, or output) on a pseudo-terminal: its
    exit status, the other stream and what the terminal was shown. The terminal is read
    while the command runs: a full terminal would block its writes."""
    main, secondary = pty.openpty()
    chunks: list[bytes] = []
    reader = threading.Thread(target=_drain, args=(main, chunks))
    reader.start()
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=dict(env),
            stdout=secondary if terminal == "stdout" else subprocess.PIPE,
            stderr=secondary if terminal == "stderr" else subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(secondary)
        reader.join()
        os.close(main)
    other = done.stderr if terminal == "stdout" else done.stdout
    return done.returncode, other, b"".join(chunks).decode("utf-8", "replace")


def _drain(fd: int, chunks: list[bytes]) -> None:
    """Read ``fd`` until the other end of the terminal is closed."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end is closed
            return
        if not chunk:
            return
        chunks.append(chunk)
