"""Render a resolved profile: sh, dotenv, json, github ($GITHUB_ENV), config (YAML overlay),
python (the stack's calls, a module to import), megatron-args (Megatron-LM flags) or primus
(a Primus experiment overlay).

Every renderer is a pure function of an `Export`; output is byte-identical from
run to run (sorted, no timestamps).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from knobregistry.export.common import POSIX_NAME, Export, ExportError, check_variables
from knobregistry.export.dotenv import dotenv_quote, render_dotenv
from knobregistry.export.github import render_github
from knobregistry.export.megatron_args import render_megatron_args
from knobregistry.export.primus import render_primus
from knobregistry.export.python_module import render_python
from knobregistry.export.shell import render_sh, sh_quote
from knobregistry.export.structured import render_config, render_json
from knobregistry.registry.model import ConfigKey

RENDERERS: dict[str, Callable[[Export], str]] = {
    "sh": render_sh,
    "dotenv": render_dotenv,
    "json": render_json,
    "github": render_github,
    "config": render_config,
    "python": render_python,
}
# The launcher's forms of the config keys, which need each key's registry entry.
KEYED_RENDERERS: dict[str, Callable[[Export, Mapping[str, ConfigKey]], str]] = {
    "megatron-args": render_megatron_args,
    "primus": render_primus,
}
FORMATS = (*RENDERERS, *KEYED_RENDERERS)
# The formats that write the profile's variables (the others write its config keys).
ENV_FORMATS = ("sh", "dotenv", "json", "github")


def render(
    export: Export, fmt: str = "sh", config_keys: Mapping[str, ConfigKey] | None = None
) -> str:
    """The file for ``fmt``; raises ExportError for what the format cannot hold.

    ``config_keys`` are the registry's `config:` entries (backend, default, argument).
    """
    if fmt in KEYED_RENDERERS:
        return KEYED_RENDERERS[fmt](export, config_keys or {})
    if fmt not in RENDERERS:
        raise ExportError(f"unknown format '{fmt}'; the formats are {', '.join(FORMATS)}.")
    if fmt not in ("config", "python"):
        check_variables(export)
    return RENDERERS[fmt](export)


__all__ = [
    "ENV_FORMATS",
    "FORMATS",
    "POSIX_NAME",
    "Export",
    "ExportError",
    "dotenv_quote",
    "render",
    "sh_quote",
]
