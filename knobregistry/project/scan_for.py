"""The one scan every command runs: settings from the registry's scope and the project's
``[tool.knobs]``, the installed trainers' config types, the cache, and progress.

`knobs check`, `init`, `diff`, `trace`, `explain`, `export --scan` and the pytest plugin
scan a registry's scope with ``scan_for``; `knobs scan` scans what its command line names
with ``scan_with``. Both build one ``scanner.Settings`` with ``settings_for``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from knobregistry._io.cache import default_cache_dir
from knobregistry._text.paths import shown
from knobregistry._text.progress import counting
from knobregistry.project.trainer_types import trainer_config_types
from knobregistry.registry.pyproject import PyprojectError, project_settings
from scanner import ScanResult, Settings, scan
from scanner.settings import DEFAULT_INCLUDE, ENV_BLOCKS

if TYPE_CHECKING:
    from knobregistry.registry import Registry

# What a scope or a project that sets nothing gives: an empty include or env_blocks is the
# scanner's own.
NOTHING = Settings(include=(), env_blocks=())
# Settings only the scope gives (the project's [tool.knobs] has no such keys).
_SCOPE_ONLY = frozenset({"include", "exclude", "match", "narrow", "max_file_bytes"})


def settings_for(scope: Settings, project: Settings = NOTHING) -> Settings:
    """One scan's settings: the scope's files and names (include, exclude, match); every
    list of both, the scope's first, each item once; the scanner's include and ENV_VARS
    where neither gives any; the installed trainers' config types."""
    merged: dict[str, Any] = {}
    for each in fields(Settings):
        mine, theirs = getattr(scope, each.name), getattr(project, each.name)
        if each.name in _SCOPE_ONLY or not isinstance(mine, tuple):
            merged[each.name] = mine
        else:
            merged[each.name] = tuple(dict.fromkeys((*mine, *theirs)))
    merged["include"] = merged["include"] or DEFAULT_INCLUDE
    merged["env_blocks"] = merged["env_blocks"] or ENV_BLOCKS
    return Settings(**merged).with_types(trainer_config_types())


def scan_with(
    targets: Sequence[Path],
    settings: Settings,
    *,
    root: Path | None = None,
    cache_dir: Path | None,
    jobs: int | None = None,
) -> ScanResult:
    """Scan ``targets`` with ``settings``, showing how many files are done (on a terminal,
    when the command installed a reporter)."""
    label = "scanning " + ", ".join(shown(t, Path.cwd()) for t in targets)
    with counting(label, "files") as progress:
        return scan(targets, settings, root=root, cache_dir=cache_dir, jobs=jobs, progress=progress)


def scan_for(
    registry: Registry,
    paths: Sequence[Path] | None = None,
    *,
    project: Settings | None = None,
    cache_dir: Path | None = None,
    jobs: int | None = None,
) -> ScanResult:
    """Scan the registry's scope, or ``paths`` instead of its paths (same filters), with the
    cache (``cache_dir``, default: the user's cache folder) and the project's settings.

    The settings are the scope's, then ``project``'s (default: ``[tool.knobs]`` of the
    pyproject.toml nearest the registry). Output paths are relative to the registry's
    folder, where its exclude globs apply. Raises RegistryError when a path of the scope
    does not exist (without ``paths``), or when the pyproject.toml cannot be read.
    """
    if paths is None:
        _require_scope_paths(registry)
    settings = settings_for(
        registry.scan.settings(), project if project is not None else project_of(registry)
    )
    targets = registry.scan_paths() if paths is None else tuple(paths)
    return scan_with(
        targets,
        settings,
        root=registry.root,
        cache_dir=cache_dir if cache_dir is not None else default_cache_dir(),
        jobs=jobs,
    )


def _require_scope_paths(registry: Registry) -> None:
    from knobregistry.registry import RegistryError, RegistryProblem

    problems = []
    display = shown(registry.path, Path.cwd())
    for index, (rel, full) in enumerate(
        zip(registry.scan.paths, registry.scan_paths(), strict=True)
    ):
        if not full.exists():
            line, column = registry.position("scan", "paths", index)
            problems.append(
                RegistryProblem(
                    path=display,
                    line=line,
                    column=column,
                    key_path=("scan", "paths", index),
                    message=f"'{rel}' does not exist; scan paths are relative to the registry's "
                    f"folder ({shown(registry.root, Path.cwd())}).",
                )
            )
    if problems:
        raise RegistryError(problems)


def project_of(registry: Registry) -> Settings:
    """``[tool.knobs]`` of the pyproject.toml nearest the registry."""
    from knobregistry.registry import pyproject_problem

    try:
        return project_settings(registry.root)
    except PyprojectError as exc:
        raise pyproject_problem(exc) from exc
