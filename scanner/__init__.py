"""scanner: find every environment read in a Python tree, with its gate verdict.

Pure: source text in, frozen results out. No printing, no YAML, no imports of
the scanned code, and nothing from ``knobregistry``.
"""

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
