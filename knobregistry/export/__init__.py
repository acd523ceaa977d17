"""Render a resolved profile in one of the formats of `export.formats`: sh, dotenv, json,
github ($GITHUB_ENV), config (YAML overlay), python (the stack's calls, a module to import),
megatron-args (Megatron-LM flags) or primus (a Primus experiment overlay).

Every renderer is a pure function of an `Export`; output is byte-identical from
run to run (sorted, no timestamps).
"""

from __future__ import annotations

from knobregistry.export.common import POSIX_NAME, Export, ExportError, ExportFormat, Part
from knobregistry.export.dotenv import dotenv_quote
from knobregistry.export.formats import FORMATS, NAMES, export_format, formats_help, render
from knobregistry.export.shell import sh_quote

__all__ = [
    "FORMATS",
    "NAMES",
    "POSIX_NAME",
    "Export",
    "ExportError",
    "ExportFormat",
    "Part",
    "dotenv_quote",
    "export_format",
    "formats_help",
    "render",
    "sh_quote",
]
