"""The options that choose the scan cache: ``--cache-dir``, ``--no-cache``, ``--jobs``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from knobregistry.commands.jobs import SCAN_JOBS

F = TypeVar("F", bound=Callable[..., object])


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
        click.option(
            "--no-cache",
            is_flag=True,
            help=(
                "Neither read nor write the scan cache (the config key types of an installed"
                " trainer are still kept in the user cache folder, keyed by its sources)."
            ),
        ),
        click.option(
            "--jobs",
            "-j",
            default=None,
            metavar="N",
            callback=SCAN_JOBS,
            help="Worker processes (default: one per CPU, at most 4 per CPU; small trees run "
            "in-process).",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function
