"""`knobs init`: write a starting registry from a scan, never over an existing file unasked."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import NoReturn

import click

from knobregistry._io.atomic import write_atomic
from knobregistry._io.lock import LockError, locked
from knobregistry._text.paths import shown
from knobregistry._text.plural import counted
from knobregistry._text.progress import reporting, stderr_reporter
from knobregistry.catalogue import Platform
from knobregistry.commands.exit_codes import ExitCode
from knobregistry.init.starter import (
    SCHEMA_COPY,
    render_starter,
    schema_copy,
    schema_reference,
    shipped_schema,
)
from knobregistry.project.scan_for import scan_for
from knobregistry.project.stack_use import StackUse, stack_use
from knobregistry.registry import Registry, ScanScope
from knobregistry.registry.feature import undecided_gate
from knobregistry.registry.pyproject import PyprojectError, project_settings
from knobregistry.registry.site_reads import sites_disagree
from scanner import Language, Role


def _fail(message: str) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    click.get_current_context().exit(ExitCode.USAGE)


def _refuse_to_overwrite(output: Path, force: bool) -> None:
    if output.exists() and not force:
        _fail(
            f"{output.as_posix()} already exists; pass --force to overwrite it, "
            "or --output PATH to write another file."
        )


@click.command("init")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("registry.yaml"),
    show_default=True,
    metavar="PATH",
    help="The registry file to write.",
)
@click.option("--force", is_flag=True, help="Overwrite the output file if it exists.")
@click.option(
    "--match",
    "-m",
    multiple=True,
    metavar="PATTERN",
    help="Register only variables whose name matches this shell-style pattern "
    "('PRIMUS_*'); written to scan.match. Repeatable.",
)
@click.option(
    "--exclude",
    "-e",
    multiple=True,
    metavar="GLOB",
    help="Skip paths matching this glob (relative to the output file's folder); written "
    "to scan.exclude. Repeatable.",
)
@click.option(
    "--platform",
    type=click.Choice([p.value for p in Platform if p is not Platform.ANY]),
    help="The platform the project runs on, for the stack settings of one platform (cuDNN, "
    "rocBLAS, ...). Without it, with --environment the installed torch's build decides "
    "(2.5.1+rocm6.2: rocm); otherwise those settings are left out.",
)
@click.option(
    "--environment",
    is_flag=True,
    help="Also propose stack settings for the packages installed where knobs runs (run it in "
    "the project's environment), and let the installed torch's build decide the platform. "
    "Without it, only packages the project's requirements*.txt, pyproject.toml or code name.",
)
def init_command(
    paths: tuple[Path, ...],
    output: Path,
    force: bool,
    match: tuple[str, ...],
    exclude: tuple[str, ...],
    platform: str | None,
    environment: bool,
) -> None:
    """Write a starting registry for the knobs under PATHS (default: the current folder).

    Every knob found is registered `untriaged`, with the default its code falls
    back to. The scope (scan.paths) is PATHS, relative to the output file's
    folder, with policy `all`. An existing file is left alone unless --force.

    The stack's determinism settings from the shipped catalogue (`knobs catalogue`)
    that apply to the libraries the project uses are registered too, with role
    `stack` and their source, and the bitwise profile sets them.
    """
    folder = output.parent
    if not folder.is_dir():
        _fail(f"the folder {folder.as_posix()} does not exist; create it first.")
    _refuse_to_overwrite(output, force)
    targets = list(paths) or [Path()]
    try:
        settings = project_settings(folder)
    except PyprojectError as exc:
        _fail(str(exc))
    # The scope the registry will hold, scanned as `knobs check` will scan it (and cached).
    scope = ScanScope(paths=tuple(shown(p, folder) for p in targets), exclude=exclude, match=match)
    starting = Registry(
        path=output,
        root=folder,
        version=1,
        scan=scope,
        knobs={},
        external={},
        config={},
        profiles={},
    )
    with reporting(stderr_reporter()):  # the files done: on a terminal, or a line now and then
        result = scan_for(starting, targets, project=settings)
    for note in result.notes:
        click.echo(f"knobs init: note: {note}", err=True)
    use = stack_use(
        folder=folder,
        paths=targets,
        platform=Platform(platform) if platform is not None else None,
        environment=environment,
        written={w.name for w in result.writes if w.name and w.language is not Language.PYTHON},
    )
    reference = schema_reference(folder)
    copy = folder / SCHEMA_COPY if reference is None else None
    plan = schema_copy(copy, force) if copy is not None else None
    starter = render_starter(
        result,
        paths=[shown(p, folder) for p in targets],
        exclude=exclude,
        match=match,
        schema=reference if reference is not None else SCHEMA_COPY,
        stack=(*use.entries, *use.launched),
    )
    try:
        with locked(output):  # no `knobs triage --record` writes it meanwhile
            _refuse_to_overwrite(output, force)  # nor another init
            if copy is not None and plan is not None and plan.write:
                text = shipped_schema().read_text(encoding="utf-8")
                write_atomic(copy, text, follow=False)  # a link put there meanwhile: replaced
            write_atomic(output, starter.text)
    except LockError as exc:
        _fail(str(exc))
    except OSError as exc:
        failed = exc.filename or output
        _fail(f"cannot write {Path(failed).as_posix()}: {exc.strerror or exc}.")
    on = sum(1 for k in starter.knobs if k.default_on)
    click.echo(
        f"Wrote {output.as_posix()}: {counted(len(starter.knobs), 'knob')} "
        f"({on} on by default), every one untriaged."
    )
    if copy is not None and plan is not None and plan.write:
        click.echo(
            f"Wrote {copy.as_posix()}: the registry's JSON schema, which the first line of "
            f"{output.name} points editors at; commit it beside it."
        )
    if plan is not None and plan.note is not None:
        click.echo(f"knobs init: note: {plan.note}", err=True)
    for line in _stack_lines(use):
        click.echo(line)
    roles = Counter(k.role for k in starter.knobs)
    if starter.knobs:
        shown_roles = ", ".join(f"{roles[r]} {r.value}" for r in Role if roles[r])
        click.echo(
            f"Roles proposed from the code: {shown_roles}; confirm each by writing `role: ROLE`."
        )
    undecided = [k.name for k in starter.knobs if undecided_gate(k) is not None]
    if undecided:
        click.echo(
            f"Undecided: {counted(len(undecided), 'knob')} whose gate the scan could not decide "
            "(`undecided:` in the registry); no profile sets them, and `knobs check` lists them."
        )
    for knob in starter.knobs:
        if sites_disagree(knob):
            reason = knob.conflict_reason or "its sites read it differently"
            click.echo(
                f"Conflict in {knob.name}: {reason}; how each site reads it is recorded under "
                "`sites`, which `knobs check` holds the code to."
            )
    if result.dynamic or result.errors:
        click.echo(
            f"Not registered: {counted(len(result.dynamic), 'dynamic read')} and "
            f"{counted(len(result.errors), 'file')} that could not be scanned "
            "(`knobs check` lists them)."
        )
    click.echo("Next: say what each knob gates, triage it, and run `knobs check`.")
    if starter.skipped:
        names = ", ".join(repr(name) for name in starter.skipped)
        click.echo(
            f"Excluded {counted(len(starter.skipped), 'name')} that no registry can hold "
            f"(letters, digits and '_' only), which `knobs check` leaves out too: {names}."
        )


def _stack_lines(use: StackUse) -> list[str]:
    """What init proposed from the catalogue, from which packages, on which platform."""
    lines: list[str] = []
    if not use.found and not use.launched:
        return lines
    if use.entries:
        libraries = ", ".join(dict.fromkeys(e.library for e in use.entries))
        unset = sorted({e.name for e in use.entries if e.must_stay_unset})
        they = "it" if len(unset) == 1 else "they"
        how = f" ({', '.join(unset)} unset: {they} must stay unset)" if unset else ""
        lines.append(
            f"Stack settings from the catalogue: {counted(len(use.entries), 'setting')} of "
            f"{libraries}, role `stack`, set by the bitwise profile{how}."
        )
    if use.launched:
        names = ", ".join(dict.fromkeys(e.name for e in use.launched))
        lines.append(
            f"Stack settings the project's launchers set: {names}; role `stack`, set by the "
            "bitwise profile to their deterministic values."
        )
    for entry in use.by_hand:
        lines.append(
            f"Not in the recipe: {entry.name} holds other settings as well, which a recipe line "
            f"would replace; add {entry.value_text} to it where your launcher sets it "
            f"({entry.library}: {entry.meaning}; source: {entry.source})."
        )
    if use.found:
        found = "; ".join(f"{name} ({how})" for name, how in use.found.items())
        lines.append(f"Libraries found: {found}.")
    if use.platform is not None:
        lines.append(f"Platform: {use.platform.value} ({use.platform_reason}).")
    else:
        lines.append(
            f"Platform: undecided ({use.platform_reason}); the settings of one platform "
            "(NCCL, cuBLAS, cuDNN, RCCL, rocBLAS, hipBLASLt, MIOpen, ...) were left out: "
            "pass --platform cuda|rocm|cpu."
        )
    return lines
