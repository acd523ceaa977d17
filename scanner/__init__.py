"""scanner: find every environment read in a Python tree, with its gate verdict.

Pure: source text in, frozen results out. No printing, no YAML, no imports of
the scanned code, and nothing from ``knobregistry``.
"""

from scanner.model import (
    DynamicRead,
    Gate,
    GateKind,
    Knob,
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

__all__ = [
    "DynamicRead",
    "Gate",
    "GateKind",
    "Knob",
    "Polarity",
    "ReadKind",
    "Role",
    "ScanError",
    "ScanResult",
    "ScanStats",
    "Site",
    "WrapperInfo",
    "Write",
    "WriteKind",
    "scan",
]
