"""What triage removes: only what lies in the runs folder it made, never through a link.

A sweep's runs folder (``DIR/knobs-runs-`` and 16 random hex digits) is named in the
journal's header before it is made, and made with mkdir, which fails on anything already
there; so it, and everything under it (the runs' folders, their stdout and stderr), is
triage's own. Nothing outside it is removed, whatever else is in the triage folder (a
`runs/` of the user's, with `--dir .`). A symbolic link on the way to a path is never
followed: the path is then left alone.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path


def remove(root: Path, path: Path) -> None:
    """Remove ``path`` (``root`` itself or under it) and what it holds, when ``root`` and
    every folder between them is a folder, not a link; a link at ``path`` is unlinked."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return  # not under the runs folder: not triage's to remove
    if ".." in parts:
        return
    folders = [root]
    for part in parts[:-1]:
        folders.append(folders[-1] / part)
    if not all(map(_is_folder, folders)):
        return
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(path, ignore_errors=True)  # removes links inside, never follows them
    else:
        path.unlink(missing_ok=True)


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
