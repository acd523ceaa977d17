"""Find the registry a command should use when none is named on the command line."""

from __future__ import annotations

import os
from pathlib import Path

from knobregistry.registry.model import RegistryError, RegistryProblem
from knobregistry.registry.pyproject import PYPROJECT, PyprojectError, folders_up, tool_table

REGISTRY_FILENAME = "registry.yaml"


def find_registry(
    explicit: str | os.PathLike[str] | None = None, *, start: str | os.PathLike[str] | None = None
) -> Path:
    """The registry file to use; raises RegistryError when there is none.

    An ``explicit`` path (``--registry``) wins. Otherwise, from ``start`` (default:
    the current folder) up to the repository root (the first folder holding
    ``.git`` or ``.hg``): in each folder, a ``pyproject.toml`` whose
    ``[tool.knobs]`` table names a ``registry`` (relative to that file), else a
    ``registry.yaml``. The first found wins.
    """
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise _not_found(path.as_posix(), "no registry file here; check the --registry path.")
        return path
    origin = (Path(start) if start is not None else Path.cwd()).absolute()
    for folder in folders_up(origin):
        named = _from_pyproject(folder / PYPROJECT)
        if named is not None:
            return named
        candidate = folder / REGISTRY_FILENAME
        if candidate.is_file():
            return candidate
    raise _not_found(
        origin.as_posix(),
        f"no {REGISTRY_FILENAME} here or in a parent folder up to the repository root; "
        "create one with `knobs init`, or name one with --registry PATH.",
    )


def _from_pyproject(pyproject: Path) -> Path | None:
    """The registry that ``[tool.knobs] registry`` names, or None when it names none."""
    try:
        knobs = tool_table(pyproject)
    except PyprojectError as exc:
        raise pyproject_problem(exc) from exc
    if knobs is None or "registry" not in knobs:
        return None
    shown = pyproject.as_posix()
    value = knobs["registry"]
    if not isinstance(value, str) or not value:
        raise _not_found(shown, '[tool.knobs] registry must be a path, such as "registry.yaml".')
    path = pyproject.parent / value
    if not path.is_file():
        raise _not_found(shown, f"[tool.knobs] registry names '{value}', which is not a file.")
    return path


def _not_found(path: str, message: str) -> RegistryError:
    return RegistryError(
        [RegistryProblem(path=path, line=0, column=0, key_path=(), message=message)]
    )


def pyproject_problem(error: PyprojectError) -> RegistryError:
    """A pyproject.toml that cannot be used, reported as registry problems are."""
    return _not_found(error.path, error.message)
