"""`knobs scan`: list every environment knob in a source tree."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from knobregistry._io.cache import chosen_cache_dir
from knobregistry._text.progress import reporting, stderr_reporter
from knobregistry.commands.cache_options import cache_options
from knobregistry.commands.exit_codes import usage_error
from knobregistry.project.scan_for import scan_with, settings_for
from knobregistry.registry.pyproject import PyprojectError, project_settings
from knobregistry.report.scan_json import render_scan_json
from scanner import Settings
from scanner.settings import DEFAULT_INCLUDE


@click.command("scan")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--match",
    "-m",
    "match",
    multiple=True,
    metavar="PATTERN",
    help="Report only variables whose name matches this shell-style pattern "
    "(for example 'PRIMUS_*'). Repeatable.",
)
@click.option(
    "--exclude",
    "-e",
    multiple=True,
    metavar="GLOB",
    help="Skip paths matching this glob: a bare name matches any folder or file "
    "('_triton_v1'), a pattern with '/' matches the path. Repeatable.",
)
@click.option(
    "--include",
    "-i",
    multiple=True,
    metavar="GLOB",
    help="In the folders it walks, scan only files whose name matches this glob (default: "
    + ", ".join(f"'{g}'" for g in DEFAULT_INCLUDE)
    + "; while it holds '*.sh', any other file whose first line names a shell, such as a "
    ".slurm file, is a shell script). A file named on the command line is scanned whatever "
    "its name. Repeatable.",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Output format. 'json' follows the documented contract.",
)
@cache_options
def scan_command(
    paths: tuple[Path, ...],
    match: tuple[str, ...],
    exclude: tuple[str, ...],
    include: tuple[str, ...],
    fmt: str,
    cache_dir: Path | None,
    no_cache: bool,
    jobs: int | None,
) -> None:
    """Find every environment read under PATHS (default: the current folder), with its
    default and its off switch.

    Python code, launcher shell scripts (by name or by their first line), YAML configs
    (${VAR:default} values, ENV_VARS: blocks), Dockerfiles and CI workflows
    (.github/workflows, .gitlab-ci.yml) are all read; each knob says in which of these
    layers it is read. Each knob is listed with the default its code falls back to (a
    default computed when the script runs, such as ${HOME}/out, is shown as written and
    marked computed), whether the gate is on when the variable is unset, and the value
    that turns it off. When launchers set knobs (export X=1, X=1 cmd, env X=1, docker
    run -e X=1, srun --export=X=1, ENV_VARS: blocks, workflow env:), a 'set by' column
    names the first such write.
    Reads whose variable name cannot be resolved are listed as dynamic; files
    that cannot be read or parsed are listed as errors, and the scan goes on.
    The launch facts and accessors that `[tool.knobs]` of the nearest
    pyproject.toml names are added to the scanner's own; its env_blocks replace
    ENV_VARS as the keys of the YAML blocks that set the environment.
    """
    try:
        project = project_settings(Path.cwd())
    except PyprojectError as exc:
        usage_error("scan", str(exc))
    asked = Settings(include=include, exclude=exclude, match=match, env_blocks=())
    with reporting(stderr_reporter()):  # the files done: on a terminal, or a line now and then
        result = scan_with(
            paths or (Path(),),
            settings_for(asked, project),
            cache_dir=chosen_cache_dir(cache_dir, no_cache),
            jobs=jobs,
        )
    for note in result.notes:
        click.echo(f"knobs scan: note: {note}", err=True)
    if fmt == "json":
        click.echo(render_scan_json(result), nl=False)
    else:
        # rich and the table: not loaded for JSON, which scripts and the CI guard read
        from rich.console import Console

        from knobregistry._text.width import output_width
        from knobregistry.report.scan_table import render_scan_table

        render_scan_table(result, Console(highlight=False, width=output_width(sys.stdout)))
