from __future__ import annotations

import os

from ..backends import backends


def _create_driver():
    selected = os.environ.get("TRITON_DEFAULT_BACKEND", None)
    if selected:
        return backends[selected].driver()
    return next(iter(backends.values())).driver()


class DriverConfig:

    def __init__(self) -> None:
        self._active = None

    @property
    def active(self):
        if self._active is None:
            self._active = _create_driver()
        return self._active


driver = DriverConfig()
