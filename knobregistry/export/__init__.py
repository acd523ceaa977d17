"""Render a resolved profile: sh, dotenv, json, github ($GITHUB_ENV) or config (YAML overlay).

Every renderer is a pure function of an `Export`; output is byte-identical from
run to run (sorted, no timestamps).
"""

from __future__ import annotations

from collections.abc import Callable

from knobregistry.export.common import POSIX_NAME, Export, ExportError, check_variables
from knobregistry.export.dotenv import dotenv_quote, render_dotenv
from knobregistry.export.github import render_github
from knobregistry.export.shell import render_sh, sh_quote
from knobregistry.export.structured import render_config, render_json

RENDERERS: dict[str, Callable[[Export], str]] = {
    "sh": render_sh,
    "dotenv": render_dotenv,
    "json": render_json,
    "github": render_github,
    "config": render_config,
}
FORMATS = tuple(RENDERERS)


def render(export: Export, fmt: str = "sh") -> str:
    """The file for ``fmt``; raises ExportError for what the format cannot hold."""
    if fmt not in RENDERERS:
        raise ExportError(f"unknown format '{fmt}'; the formats are {', '.join(FORMATS)}.")
    if fmt != "config":
        check_variables(export)
    return RENDERERS[fmt](export)


__all__ = [
    "FORMATS",
    "POSIX_NAME",
    "Export",
    "ExportError",
    "dotenv_quote",
    "render",
    "sh_quote",
]
