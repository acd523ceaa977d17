"""How paths are shown to users: relative, POSIX."""

from __future__ import annotations

import os
from pathlib import Path


def shown(path: Path, start: Path) -> str:
    """``path`` relative to the folder ``start``, with forward slashes."""
    return Path(os.path.relpath(path.absolute(), start.absolute())).as_posix()
