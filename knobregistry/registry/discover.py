"""Find the registry a command should use when none is named on the command line."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from knobregistry.registry.model import RegistryError, RegistryProblem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

REGISTRY_FILENAME = "registry.yaml"
PYPROJECT = "pyproject.toml"
_REPOSITORY_MARKERS = (".git", ".hg")


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
    origin = Path(start) if start is not None else Path.cwd()
    origin = origin.absolute()
    for folder in (origin, *origin.parents):
        named = _from_pyproject(folder / PYPROJECT)
        if named is not None:
            return named
        candidate = folder / REGISTRY_FILENAME
        if candidate.is_file():
            return candidate
        if any((folder / marker).exists() for marker in _REPOSITORY_MARKERS):
            break
    raise _not_found(
        origin.as_posix(),
        f"no {REGISTRY_FILENAME} here or in a parent folder up to the repository root; "
        "create one with `knobs init`, or name one with --registry PATH.",
    )


def _from_pyproject(pyproject: Path) -> Path | None:
    """The registry that ``[tool.knobs] registry`` names, or None when it names none."""
    if not pyproject.is_file():
        return None
    shown = pyproject.as_posix()
    try:
        table: dict[str, Any] = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _not_found(shown, f"cannot read it to look for [tool.knobs]: {exc}.") from exc
    knobs = table.get("tool", {}).get("knobs", {})
    if not isinstance(knobs, dict) or "registry" not in knobs:
        return None
    value = knobs["registry"]
    if not isinstance(value, str) or not value:
        raise _not_found(shown, '[tool.knobs] registry must be a path, such as "registry.yaml".')
    path = pyproject.parent / value
    if not path.is_file():
        raise _not_found(shown, f"[tool.knobs] registry names '{value}', which is not a file.")
    return path


def _not_found(path: str, message: str) -> RegistryError:
    return RegistryError([RegistryProblem(path, 0, 0, (), message)])
