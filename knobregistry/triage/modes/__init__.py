"""The compare modes of `knobs triage --compare`, as a table: one module of this package per
mode, each declaring ``MODE = Mode(...)`` (its name, argument, help, docs row, and how it
parses, observes, compares and records). --compare's help, its parsing, the error that lists
the modes, the record's fields and the table in docs/triage.md all read this table, and the
registry's schema reads its declarations' source (knobregistry.registry.schema), so a new
mode is its module and its test."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from knobregistry.triage.modes.mode import CompareError, Mode, Unusable


def _declared() -> tuple[Mode[Any], ...]:
    """Every MODE of this package's modules, in ``place`` order."""
    found: list[Mode[Any]] = []
    for module in pkgutil.iter_modules(__path__):
        declared = getattr(importlib.import_module(f"{__name__}.{module.name}"), "MODE", None)
        if isinstance(declared, Mode):
            found.append(declared)
    return tuple(sorted(found, key=lambda mode: mode.place))


MODES = _declared()
_BY_NAME = {mode.name: mode for mode in MODES}


def named(kind: str) -> Mode[Any] | None:
    """The mode named ``kind``; None when no mode is."""
    return _BY_NAME.get(kind)


def usages() -> tuple[str, ...]:
    """Each mode as it is written: `stdout`, `regex:PATTERN`, ..."""
    return tuple(mode.usage for mode in MODES)


def modes_help() -> str:
    """--compare's help: each mode, with what it compares in parentheses where it says."""
    shown = [f"{m.usage} ({m.help})" if m.help else m.usage for m in MODES]
    listed = ", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else shown[0]
    return f"{listed}, relative to each run's working directory."


def docs_table() -> list[str]:
    """The lines of the table of modes in docs/triage.md."""
    rows = [f"| `{m.usage}` | " + " | ".join(m.docs) + " |" for m in MODES]
    return ["| mode | compares | first difference shown as |", "| --- | --- | --- |", *rows]


__all__ = [
    "MODES",
    "CompareError",
    "Mode",
    "Unusable",
    "docs_table",
    "modes_help",
    "named",
    "usages",
]
