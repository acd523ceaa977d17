"""Environment helpers shared by the toy model's fusion gates.

Most gates read ``os.environ`` directly, the way fusion code tends to grow. Newer
fusions go through :func:`fusion_enabled`, which keeps the spelling of "on" in one
place.
"""

from __future__ import annotations

import os

_TRUTHY = ("1", "true", "yes", "on")


def env_flag(name: str, default: bool = False) -> bool:
    """Return the boolean value of environment variable ``name``.

    Unset means ``default``; otherwise ``1/true/yes/on`` (any case) mean on and
    anything else means off.
    """
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in _TRUTHY


def fusion_enabled(name: str) -> bool:
    """Fusions are on unless the user switches them off (``NAME=0``)."""
    return env_flag(name, default=True)
