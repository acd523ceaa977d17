"""`knobs diff` as a use case: read two revisions from git, scan each, compare the knobs.

Each revision's files are copied out of git objects into a temporary folder and
scanned there with that revision's registry scope (the head's, when the base has
no registry yet). The working tree is never read for code, never checked out,
never written.
"""

from __future__ import annotations

import os
import posixpath
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from knobregistry._text.paths import shown
from knobregistry.diff.code import code_changes
from knobregistry.diff.compare import KnobDiff, KnobState, compare, states
from knobregistry.diff.git import (
    GitError,
    Revision,
    extract,
    read_blob,
    read_text,
    repository_root,
    resolve,
)
from knobregistry.project.scan_for import scan_for
from knobregistry.registry import Registry, loads_registry, pyproject_problem
from knobregistry.registry.document import decode_document
from knobregistry.registry.pyproject import PYPROJECT, PyprojectError, settings_of, tool_table_of
from scanner import ScanResult, Settings
from scanner.source.files import DEFAULT_INCLUDE


class DiffError(Exception):
    """A diff that cannot be made (no repository, no such revision); the CLI exits 2."""


@dataclass(frozen=True, slots=True)
class _Side:
    revision: Revision
    registry: Registry | None  # None: the registry did not exist at this revision
    scan: ScanResult
    root: Path  # the registry's folder in the revision's files


def knob_diff(base: str, head: str, *, registry: Path, cwd: Path) -> KnobDiff:
    """The knob changes from ``base`` to ``head``; ``registry`` is the working tree's file.

    Raises DiffError, or RegistryError for a registry that does not load at a revision.
    """
    home = registry.absolute().parent

    def where(path: str) -> str:
        return shown(home / path, cwd)

    try:
        root = repository_root(registry.absolute().parent)
        rel = _inside(registry, root)
        revisions = resolve(root, base), resolve(root, head)
        with tempfile.TemporaryDirectory(prefix="knobs-diff-") as temporary:
            folder = Path(temporary)
            head_text = _registry_text(root, revisions[1], rel)
            at_head = _is_head(root, revisions[1])
            if head_text is None:
                raise _missing(registry, rel, revisions[1], at_head, cwd)
            head_side = _side(root, revisions[1], rel, head_text, folder / "head", head_text)
            base_text = _registry_text(root, revisions[0], rel)
            base_side = _side(root, revisions[0], rel, base_text, folder / "base", head_text)
            code = code_changes(
                base_side.registry, base_side.root, head_side.registry, head_side.root, where
            )
    except GitError as exc:
        raise DiffError(str(exc)) from exc

    old: dict[str, KnobState] = states(base_side.scan, base_side.registry, where)
    new: dict[str, KnobState] = states(head_side.scan, head_side.registry, where)
    notes = (_uncommitted(registry, cwd),) if at_head and _changed(registry, head_text) else ()
    return KnobDiff(
        base=base,
        head=head,
        registry=shown(registry, cwd),
        rows=tuple(compare(old, new, code)),
        notes=notes,
    )


def _registry_text(root: Path, revision: Revision, rel: str) -> str | None:
    """The registry's text at ``revision`` (None: absent), read as every command reads the
    registry: UTF-8, else a RegistryError naming the line and column."""
    data = read_blob(root, revision, rel)
    return None if data is None else decode_document(data, f"{revision.name}:{rel}")


def _is_head(root: Path, revision: Revision) -> bool:
    """Whether ``revision`` is the commit the working tree is on."""
    try:
        return resolve(root, "HEAD").commit == revision.commit
    except GitError:
        return False


def _missing(registry: Path, rel: str, revision: Revision, at_head: bool, cwd: Path) -> DiffError:
    """The registry is absent at ``revision``: when it is the working tree's commit and the
    file is there, it was never committed, and committing it is the fix."""
    if not (at_head and registry.is_file()):
        return DiffError(f"{rel} does not exist at {revision.name}.")
    name = shlex.quote(shown(registry, cwd))
    return DiffError(
        f"{rel} does not exist at {revision.name}: it is in the working tree but not committed, "
        "and knobs diff reads both revisions from git, never the working tree. Commit it "
        f"(git add {name} && git commit), then run knobs diff again."
    )


def _changed(registry: Path, committed: str) -> bool:
    """Whether the working tree's registry differs from the commit's ``committed`` text."""
    try:
        return registry.read_text(encoding="utf-8") != committed
    except (OSError, UnicodeDecodeError):
        return False


def _uncommitted(registry: Path, cwd: Path) -> str:
    name = shown(registry, cwd)
    return (
        f"{name} has uncommitted changes, which this diff leaves out: knobs diff reads the "
        f"registry of each revision from git. Commit them (git add {shlex.quote(name)} && git "
        "commit) to see them here."
    )


def _inside(registry: Path, root: Path) -> str:
    """The registry's path in the repository as git stores it: its name as written, so
    that a registry that is a symbolic link is followed in each revision, not here (its
    folder is resolved only when the path reaches the repository through a link)."""
    path = registry.absolute()
    top = root.resolve()
    rel = Path(os.path.relpath(path, top)).as_posix()
    if rel.startswith("../"):
        rel = Path(os.path.relpath(path.parent.resolve(), top), path.name).as_posix()
    if rel.startswith("../"):
        raise DiffError(f"{registry.as_posix()} is outside the repository at {root.as_posix()}.")
    return rel


def _project_settings(root: Path, revision: Revision, folder: PurePosixPath) -> Settings:
    """``[tool.knobs]`` of the pyproject.toml nearest the registry's ``folder`` at
    ``revision`` (read from git, as the code is)."""
    for at in (folder, *folder.parents):
        path = (at / PYPROJECT).as_posix()
        text = read_text(root, revision, path)
        if text is None:
            continue
        try:
            table = tool_table_of(text, f"{revision.name}:{path}")
            if table is not None:
                return settings_of(table, f"{revision.name}:{path}")
        except PyprojectError as exc:
            raise pyproject_problem(exc) from exc
    return settings_of(None, PYPROJECT)


def _side(
    root: Path, revision: Revision, rel: str, text: str | None, dest: Path, fallback: str
) -> _Side:
    """One revision's scan, with its registry ``text`` (None: not at this revision, so
    ``fallback``'s scope is scanned)."""
    registry = loads_registry(
        text if text is not None else fallback, dest / rel, display=f"{revision.name}:{rel}"
    )
    folder = PurePosixPath(rel).parent
    paths = [posixpath.normpath((folder / p).as_posix()) for p in registry.scan.paths]
    for path in paths:
        if path == ".." or path.startswith("../"):
            raise DiffError(f"the scan path '{path}' at {revision.name} is outside the repository.")
    dest.mkdir(parents=True)
    project = _project_settings(root, revision, folder)
    named = [pattern for pattern, _ in (*registry.scan.languages, *project.languages)]
    include = [*(registry.scan.include or DEFAULT_INCLUDE), *named]
    extract(root, revision.commit, paths, include, dest)
    present = [p for p in registry.scan_paths() if p.exists()]
    scan = scan_for(registry, present, project=project) if present else ScanResult()
    return _Side(revision, registry if text is not None else None, scan, registry.root)
