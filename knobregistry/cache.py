"""Where scans keep their per-file cache, and the options that choose it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click
import platformdirs

F = TypeVar("F", bound=Callable[..., object])


def default_cache_dir() -> Path:
    """``$KNOBS_CACHE_DIR``, else the user's cache folder (``~/.cache/knobregistry`` on Linux)."""
    configured = os.environ.get("KNOBS_CACHE_DIR")
    if configured:
        return Path(configured)
    return Path(platformdirs.user_cache_dir("knobregistry", appauthor=False))


def cache_options(function: F) -> F:
    """``--cache-dir``, ``--no-cache`` and ``--jobs``, shared by every command that scans."""
    options = [
        click.option(
            "--cache-dir",
            type=click.Path(path_type=Path, file_okay=False),
            default=None,
            metavar="DIR",
            help="Keep per-file results here (default: $KNOBS_CACHE_DIR, else the user's "
            "cache folder). Entries are keyed by file content, so a warm scan re-parses "
            "only what changed.",
        ),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the cache."),
        click.option(
            "--jobs",
            "-j",
            type=click.IntRange(min=1),
            default=None,
            metavar="N",
            help="Worker processes (default: one per CPU; small trees run in-process).",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def chosen_cache_dir(cache_dir: Path | None, no_cache: bool) -> Path | None:
    """The folder to cache in, or None for no cache."""
    if no_cache:
        return None
    return cache_dir if cache_dir is not None else default_cache_dir()
