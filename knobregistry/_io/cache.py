"""Where scans keep their per-file cache: the policy, without the command line's options."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """``$KNOBS_CACHE_DIR``, else the user's cache folder (``~/.cache/knobregistry`` on Linux)."""
    configured = os.environ.get("KNOBS_CACHE_DIR")
    if configured:
        return Path(configured)
    import platformdirs  # only when $KNOBS_CACHE_DIR does not say

    return Path(platformdirs.user_cache_dir("knobregistry", appauthor=False))


def chosen_cache_dir(cache_dir: Path | None, no_cache: bool) -> Path | None:
    """The folder to cache in, or None for no cache."""
    if no_cache:
        return None
    return cache_dir if cache_dir is not None else default_cache_dir()
