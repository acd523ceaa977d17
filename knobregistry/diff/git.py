"""Read revisions from git objects: no checkout, nothing written to the working tree.

Every command is read-only (`rev-parse`, `ls-tree`, `cat-file`); pathspecs are
literal, and a revision that starts with '-' is refused, so nothing a user types
is read as an option. A file is read as the revision stores it: a symbolic link is
followed inside that revision's tree, never through the working tree.
"""

from __future__ import annotations

import posixpath
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from knobregistry._text.printable import printable

_FILE_MODES = frozenset({"100644", "100755"})


class GitError(Exception):
    """git is missing, this is not a repository, or a revision or path does not exist."""


@dataclass(frozen=True, slots=True)
class Revision:
    """A revision as the user named it, and the commit it resolves to."""

    name: str
    commit: str


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", "--literal-pathspecs", *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        raise GitError(f"cannot run git: {exc}.") from exc
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(detail[-1] if detail else f"git {args[0]} failed.")
    return done.stdout


def repository_root(cwd: Path) -> Path:
    """The top folder of the working tree that holds ``cwd``."""
    try:
        out = _git(cwd, "rev-parse", "--show-toplevel")
    except GitError as exc:
        raise GitError(f"{cwd.as_posix()} is not inside a git repository ({exc}).") from exc
    return Path(out.decode().strip())


def resolve(root: Path, name: str) -> Revision:
    """The commit ``name`` names; raises GitError for an unknown revision."""
    if not name or name.startswith("-"):
        raise GitError(f"'{name}' is not a revision.")
    try:
        out = _git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
    except GitError:
        raise GitError(f"'{name}' names no commit in this repository.") from None
    return Revision(name, out.decode().strip())


def _tree(root: Path, commit: str, pathspecs: Sequence[str]) -> list[tuple[str, str, str]]:
    """(mode, object, path) of every blob under ``pathspecs`` at ``commit``."""
    out = _git(root, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *pathspecs)
    entries = []
    for record in out.decode("utf-8", "surrogateescape").split("\0"):
        if not record:
            continue
        meta, _, path = record.partition("\t")
        mode, kind, obj = meta.split(" ")
        if kind == "blob":
            entries.append((mode, obj, path))
    return entries


def read_text(root: Path, revision: Revision, path: str) -> str | None:
    """The UTF-8 text of ``path`` at ``revision`` (read_blob); None if absent. A file that
    is not UTF-8 raises GitError, saying where: knobs reads its files as UTF-8 text."""
    data = read_blob(root, revision, path)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise GitError(
            f"{printable(path)} at {revision.name} is not UTF-8 text (line {line}); save it as "
            "UTF-8."
        ) from None


def read_blob(root: Path, revision: Revision, path: str) -> bytes | None:
    """The bytes of ``path`` (relative to the repository root) at ``revision``; None if absent.

    Symbolic links are followed inside that revision's tree, as a checkout of it would
    follow them; a link that leads out of the tree, to nothing, or round in a loop, and a
    folder, raise GitError: the file cannot be read from git.
    """
    if "\n" in path:
        raise GitError(f"{printable(path)}: a path with a line break cannot be read from git.")
    request = f"{revision.commit}:{path}\n".encode("utf-8", "surrogateescape")
    out = _git(root, "cat-file", "--batch", "--follow-symlinks", stdin=request)
    header, _, body = out.partition(b"\n")
    words = header.decode("utf-8", "replace").split(" ")
    if words[-1] == "missing" or words[0] == "notdir":
        return None
    at = f"{printable(path)} at {revision.name}"
    if words[0] == "symlink":
        target = body[: int(words[1])].decode("utf-8", "replace")
        raise GitError(
            f"{at} is a symbolic link to {printable(target)}, outside the repository; "
            "knobs diff reads each revision from git, so link to a file in the repository."
        )
    if words[0] in _LINK_PROBLEMS:
        raise GitError(f"{at} is a symbolic link {_LINK_PROBLEMS[words[0]]}.")
    if words[1:2] == ["tree"]:
        raise GitError(f"{at} is a folder, not a file.")
    if len(words) != 3 or words[1] != "blob":
        raise GitError(f"{at} is not a file.")
    return body[: int(words[2])]


# What `git cat-file --follow-symlinks` says of a link it cannot follow, in words.
_LINK_PROBLEMS = {
    "dangling": "to a path that does not exist in that revision",
    "loop": "that leads round in a loop",
}


def extract(
    root: Path, commit: str, paths: Sequence[str], include: Sequence[str], dest: Path
) -> int:
    """Write the files a scan of ``paths`` reads at ``commit`` under ``dest``; how many.

    ``paths`` are relative to the repository root. A folder contributes the files whose
    name matches ``include``; a named file is taken whatever its name; the `__init__.py`
    of each folder above a path comes too, so module names are what they are in a checkout.
    """
    wanted = [p for p in paths if p not in ("", ".")]
    whole = len(wanted) < len(paths)
    specs = [] if whole else [*wanted, *_package_markers(wanted)]
    files = []
    for mode, obj, path in _tree(root, commit, specs):
        if mode not in _FILE_MODES or not _safe(path):
            continue
        name = posixpath.basename(path)
        if path in wanted or name == "__init__.py" or any(fnmatchcase(name, p) for p in include):
            files.append((obj, path))
    if not files:
        return 0
    batch = _git(root, "cat-file", "--batch", stdin="".join(f"{o}\n" for o, _ in files).encode())
    offset = 0
    for _, path in files:
        header_end = batch.index(b"\n", offset)
        size = int(batch[offset:header_end].split(b" ")[2])
        start = header_end + 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(batch[start : start + size])
        offset = start + size + 1
    return len(files)


def _package_markers(paths: Sequence[str]) -> list[str]:
    markers = set()
    for path in paths:
        for parent in PurePosixPath(path).parents:
            if str(parent) != ".":
                markers.add(f"{parent}/__init__.py")
    return sorted(markers)


def _safe(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(parts) and not PurePosixPath(path).is_absolute() and ".." not in parts
