"""The formats of `knobs export`, one entry each: name, renderer, help, file suffix, and what
the file holds of the profile. `--format`'s choices and help, the check of the variables'
names and values, and the summary on standard error all read this table."""

from __future__ import annotations

from knobregistry.export.common import Export, ExportError, ExportFormat, Part, check_variables
from knobregistry.export.dotenv import render_dotenv
from knobregistry.export.github import render_github
from knobregistry.export.megatron_args import render_megatron_args
from knobregistry.export.primus import render_primus
from knobregistry.export.python_module import render_python
from knobregistry.export.shell import render_sh
from knobregistry.export.structured import render_config, render_json

_VARIABLES = frozenset({Part.VARIABLES})
_TRAINER = frozenset({Part.TRAINER_CONFIG})
_PYTHON = (
    "the stack's calls and attributes (torch.use_deterministic_algorithms) as a module the "
    "training script imports first"
)
_MEGATRON_ARGS = "the Megatron keys as Megatron-LM command-line flags (a bash array)"

# name, renderer, help, file suffix, what it holds, whether a header opens it, shell-sourced
FORMATS: tuple[ExportFormat, ...] = (
    ExportFormat("sh", render_sh, "a file to source", ".sh", _VARIABLES, True, shell=True),
    ExportFormat(
        "dotenv", render_dotenv, "a Docker Compose env file", ".env", _VARIABLES, True, shell=True
    ),
    ExportFormat("json", render_json, "everything, for tools", ".json", frozenset(Part), False),
    ExportFormat("github", render_github, "lines for $GITHUB_ENV", ".env", _VARIABLES, False),
    ExportFormat(
        "config", render_config, "the trainer-config overlay (YAML)", ".yaml", _TRAINER, True
    ),
    ExportFormat("python", render_python, _PYTHON, ".py", frozenset({Part.STACK_CALLS}), True),
    ExportFormat(
        "megatron-args", render_megatron_args, _MEGATRON_ARGS, ".sh", _TRAINER, True, shell=True
    ),
    ExportFormat("primus", render_primus, "a Primus experiment overlay", ".yaml", _TRAINER, True),
)
NAMES = tuple(f.name for f in FORMATS)
_BY_NAME = {f.name: f for f in FORMATS}


def export_format(name: str) -> ExportFormat:
    """The format named ``name``; ExportError for a name that is none."""
    found = _BY_NAME.get(name)
    if found is None:
        raise ExportError(f"unknown format '{name}'; the formats are {', '.join(NAMES)}.")
    return found


def formats_help() -> str:
    """``--format``'s help: each format, what it is, and the file it is written to."""
    return "; ".join(f"{f.name}: {f.help} (*{f.suffix})" for f in FORMATS) + "."


def render(export: Export, fmt: str = "sh") -> str:
    """The file for the format ``fmt``; raises ExportError for what the format cannot hold.

    The variables of a format that holds them are checked first (POSIX names, no NUL).
    """
    found = export_format(fmt)
    if Part.VARIABLES in found.holds:
        check_variables(export)
    return found.render(export, found)
