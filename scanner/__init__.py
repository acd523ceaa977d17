"""scanner: find every environment read in a Python tree, with its gate verdict.

Pure: source text in, frozen results out. No printing, no YAML, no imports of
the scanned code, and nothing from ``knobregistry``.

The names below are imported when first asked for (PEP 562), so that a command that
needs only ``scanner.conventions`` or ``scanner.model`` does not import the whole scan.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scanner.languages import Language
    from scanner.model import (
        DynamicRead,
        Gate,
        GateKind,
        Knob,
        ModeWrite,
        Polarity,
        ReadKind,
        Role,
        ScanError,
        ScanResult,
        ScanStats,
        Site,
        WrapperInfo,
        Write,
        WriteKind,
    )
    from scanner.run.scan import scan
    from scanner.run.selection import Progress
    from scanner.settings import Settings

__all__ = [
    "DynamicRead",
    "Gate",
    "GateKind",
    "Knob",
    "Language",
    "ModeWrite",
    "Polarity",
    "Progress",
    "ReadKind",
    "Role",
    "ScanError",
    "ScanResult",
    "ScanStats",
    "Settings",
    "Site",
    "WrapperInfo",
    "Write",
    "WriteKind",
    "scan",
]
# The module that defines each name (the rest of __all__: scanner.model).
_WHERE = {
    "Language": "scanner.languages",
    "Progress": "scanner.run.selection",
    "Settings": "scanner.settings",
    "scan": "scanner.run.scan",
}


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'scanner' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE.get(name, "scanner.model")), name)
    globals()[name] = value
    return value
