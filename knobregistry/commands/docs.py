"""`knobs docs`: render the registry into Markdown, write it between markers, or check it."""

from __future__ import annotations

from pathlib import Path

import click

from knobregistry._io.atomic import write_atomic
from knobregistry._io.files import FileError, read_text
from knobregistry._io.stdout import write_exactly
from knobregistry._text.paths import shown
from knobregistry._text.plural import counted
from knobregistry.check.diagnostics import Diagnostic, Severity
from knobregistry.check.rule_table import render_codes
from knobregistry.check.rules.docs_in_sync import doc_diagnostics, marker_diagnostic
from knobregistry.commands.exit_codes import ExitCode, usage_error
from knobregistry.commands.registry_args import fail_on_registry, open_registry, registry_option
from knobregistry.docsgen import (
    MarkerProblem,
    doc_registry,
    find_docs,
    parse,
    refresh,
    registry_ref,
    render_page,
)
from knobregistry.registry import Registry, RegistryError, find_registry
from knobregistry.report.check_text import fix_lines


@click.command("docs")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
@registry_option
@click.option(
    "--write",
    "write_path",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Render the blocks between the knobs markers of FILE anew (a new FILE gets a whole "
    "page; a file without markers gets the blocks appended). Text around them is kept.",
)
@click.option(
    "--check",
    "check_mode",
    is_flag=True,
    help="Write nothing; exit 1 when a block of FILES (default: every doc under the "
    "registry's folder that belongs to it) differs from what the registry renders.",
)
def docs_command(
    files: tuple[Path, ...], registry_path: Path | None, write_path: Path | None, check_mode: bool
) -> None:
    """Render the registry into Markdown blocks (knob table, recipes), or check them.

    \b
      knobs docs                          # print a whole page
      knobs docs --write docs/knobs.md    # create it, or refresh its marked blocks
      knobs docs --check                  # exit 1 when a doc's blocks are out of date

    A doc's registry is --registry, else the file its `<!-- knobs:registry PATH -->`
    marker names, else the one found from the doc's folder. `knobs check` runs the
    same check (KNB204, KNB205: `knobs rule KNB205` shows the markers).
    """
    if write_path is not None and check_mode:
        usage_error("docs", "use --write FILE or --check, not both.")
    if files and not check_mode:
        usage_error("docs", "FILE arguments go with --check; to write a file, use --write FILE.")
    try:
        if write_path is not None:
            _write(write_path, registry_path)
        elif check_mode:
            _check(files, registry_path)
        else:
            registry = open_registry(registry_path)
            page = render_page(registry, None, registry.path.name)
            try:
                write_exactly(page)
            except FileError as exc:
                usage_error("docs", exc.message("write", "standard output"))
    except RegistryError as error:
        fail_on_registry(error)


def _text(doc: Path) -> str:
    """The doc's text; "" for a file that does not exist yet."""
    if not doc.exists() and not doc.is_symlink():
        return ""
    try:
        return read_text(doc)
    except FileError as exc:
        usage_error("docs", exc.message("read", shown(doc, Path.cwd())))


def _registry_for(doc: Path, text: str, explicit: Path | None) -> Registry:
    """--registry, else the doc's own registry (its marker in ``text``, the doc's text,
    else found from its folder)."""
    if explicit is not None:
        return open_registry(explicit)
    parsed = parse(text)
    found = doc_registry(doc, parsed)
    if found is None:
        if parsed.registry is not None:
            file = shown(doc, Path.cwd())
            usage_error(
                "docs", f"{file}: knobs:registry names '{parsed.registry}', which is not a file."
            )
        found = find_registry(start=doc.absolute().parent)  # raises, saying why
    return open_registry(found)


def _write(doc: Path, explicit: Path | None) -> None:
    if not doc.absolute().parent.is_dir():
        folder = shown(doc.absolute().parent, Path.cwd())
        usage_error(
            "docs", f"cannot write {shown(doc, Path.cwd())}: the folder {folder} does not exist."
        )
    text = _text(doc)
    registry = _registry_for(doc, text, explicit)
    result = refresh(text, registry, registry_ref(registry, doc), codes=render_codes)
    file = shown(doc, Path.cwd())
    if result.problems:
        for problem in result.problems:
            _echo_diagnostic(marker_diagnostic(file, problem), err=True)
        usage_error("docs", f"{file} was not written: fix its markers first.")
    source = shown(registry.path, Path.cwd())
    blocks = counted(result.blocks, "block")
    if result.text == text:
        click.echo(f"{file} is up to date: {blocks} from {source}.")
        return
    try:
        write_atomic(doc, result.text)
    except FileError as exc:
        usage_error("docs", exc.message("write", file))
    if not text.strip():
        click.echo(f"Wrote {file}: a new page with {blocks} from {source}.")
    elif result.appended:
        click.echo(f"Updated {file}: appended {blocks} from {source}.")
    else:
        click.echo(f"Updated {file}: {len(result.stale)} of {blocks} from {source} rewritten.")


def _check(files: tuple[Path, ...], explicit: Path | None) -> None:
    cwd = Path.cwd()
    found: list[Diagnostic] = []
    sources: set[str] = set()
    if files:
        for doc in files:
            if not doc.is_file():
                usage_error("docs", f"{shown(doc, cwd)}: no such file.")
            text = _text(doc)
            registry = _registry_for(doc, text, explicit)
            sources.add(shown(registry.path, cwd))
            diagnostics = doc_diagnostics(doc, registry, cwd=cwd, codes=render_codes)
            if not diagnostics and not parse(text).blocks:
                message = "this doc has no knobs:begin block to check."
                diagnostics = [marker_diagnostic(shown(doc, cwd), MarkerProblem(1, message))]
            found.extend(diagnostics)
        count = len(files)
    else:
        registry = open_registry(explicit)
        sources.add(shown(registry.path, cwd))
        docs = find_docs(registry)
        for doc in docs:
            found.extend(doc_diagnostics(doc, registry, cwd=cwd, codes=render_codes))
        count = len(docs)
    for diagnostic in sorted(found, key=lambda d: d.sort_key):
        _echo_diagnostic(diagnostic)
    errors = sum(1 for d in found if d.severity is Severity.ERROR)
    scope = counted(count, "doc")
    against = ", ".join(sorted(sources))
    if errors:
        head = f"Found {counted(errors, 'error')}"
        click.echo(f"\n{head}: {scope} checked against {against}.")
        click.get_current_context().exit(ExitCode.DRIFT)
    click.echo(f"No problems: {scope} checked against {against}.")


def _echo_diagnostic(diagnostic: Diagnostic, *, err: bool = False) -> None:
    click.echo(diagnostic.render(), err=err)
    for line in fix_lines(diagnostic):
        click.echo(line, err=err)
