"""`knobs fingerprint [KNOB...]`: the code each knob gates, held against its latest record;
with --record, kept in the latest records that keep none."""

from __future__ import annotations

import json
from pathlib import Path

import click

from knobregistry._text.paths import shown
from knobregistry.commands.exit_codes import ExitCode, usage_error
from knobregistry.commands.registry_args import fail_on_registry, open_registry, registry_option
from knobregistry.project.fingerprints import (
    Fingerprint,
    Status,
    fingerprints,
    names_listed,
    record_code,
    retriage_command,
)
from knobregistry.project.scan_for import scan_for
from knobregistry.registry import Registry, RegistryError
from knobregistry.triage.yaml_edit import RecordError, add_code


@click.command("fingerprint")
@click.argument("knobs", nargs=-1, metavar="[KNOB]...")
@registry_option
@click.option(
    "--record",
    is_flag=True,
    help="Keep the code as it is now in each latest record that keeps none (never in one "
    "that keeps other code: triage that knob again).",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: for people; json: one document for machines.",
)
def fingerprint_command(
    knobs: tuple[str, ...], registry_path: Path | None, record: bool, fmt: str
) -> None:
    """Show the code each KNOB gates (default: every knob with a record), and whether it is
    the code its latest triage record was measured on.

    The code a knob gates: the functions its sites sit in, those that hold the branches
    its value decides, and every function and method those branches reach in the tree
    (Triton kernels among them), each with a digest that comments, formatting and
    docstrings do not change. `knobs triage --record` keeps it in each record, and
    `knobs check` fails (KNB009) when a knob triaged reproducible gates code that changed.

    \b
      knobs fingerprint PRIMUS_HC_TRITON
      knobs fingerprint --record     # adopt: records written before knobs kept the code

    Exit status: 0; 1 when a latest record keeps code that changed since; 2 bad usage.
    """
    try:
        registry = open_registry(registry_path)
        scan = scan_for(registry)
    except RegistryError as error:
        fail_on_registry(error)
    unknown = [k for k in knobs if k not in registry.knobs and scan.knob(k) is None]
    if unknown:
        usage_error(
            "fingerprint",
            f"{shown(registry.path, Path.cwd())} does not register {names_listed(unknown)}, and "
            "no code in its scan scope reads "
            f"{'it' if len(unknown) == 1 else 'them'}.",
        )
    found = fingerprints(registry, list(knobs) if knobs else None, scan)
    written: list[str] = []
    if record:
        written = _record(registry, found)
    if fmt == "json":
        click.echo(_json(found, written))
    else:
        click.echo(_text(registry, found, written), nl=False)
    stale = any(f.status is Status.DIFFERS for f in found)
    click.get_current_context().exit(ExitCode.DRIFT if stale else ExitCode.OK)


def _record(registry: Registry, found: list[Fingerprint]) -> list[str]:
    """Write the code of each knob whose latest record keeps none; the knobs written."""
    todo = {
        f.name: (f.index, record_code(f.units))
        for f in found
        if f.status is Status.NO_CODE and f.index is not None
    }
    if not todo:
        return []
    display = shown(registry.path, Path.cwd())
    try:
        add_code(registry.path, {n: (i, c) for n, (i, c) in todo.items() if i is not None}, display)
    except RecordError as exc:
        usage_error("fingerprint", str(exc))
    return sorted(todo)


def _status(registry: Registry, item: Fingerprint, written: list[str]) -> str:
    record = item.record
    day = record.date.isoformat() if record is not None else ""
    if item.status is Status.MATCHES:
        return f"unchanged since its latest record ({day})"
    if item.status is Status.DIFFERS:
        assert record is not None
        changes = names_listed([c.shown(c.path) for c in item.changes])
        command = retriage_command([item.name], record, shown(registry.path, Path.cwd()))
        return (
            f"changed since its latest record ({day}): {changes}; triage it again:\n    {command}"
        )
    if item.status is Status.NO_CODE:
        if item.name in written:
            return f"kept now in its latest record ({day}), which kept no code"
        return f"its latest record ({day}) keeps no code; --record keeps this code there"
    if item.status is Status.NO_RECORD:
        return "no record; `knobs triage --record` keeps it with the verdict"
    return "no Python code in the scan scope reads it, or its branches reach no code"


def _text(registry: Registry, found: list[Fingerprint], written: list[str]) -> str:
    lines: list[str] = []
    for item in found:
        triage = f", {item.triage}" if item.triage is not None else ", not registered"
        count = f"{len(item.units)} unit{'s' if len(item.units) != 1 else ''}"
        lines.append(f"{item.name} ({count}{triage}): {_status(registry, item, written)}")
        width = max((len(f"{u.path}:{u.line}") for u in item.units), default=0)
        names = max((len(u.name) for u in item.units), default=0)
        for unit in item.units:
            where = f"{unit.path}:{unit.line}"
            lines.append(f"  {where:<{width}}  {unit.name:<{names}}  {unit.digest}")
    if not found:
        lines.append("No knob has a triage record: name the knobs to show.")
    return "\n".join(lines) + "\n"


def _json(found: list[Fingerprint], written: list[str]) -> str:
    document = {
        "knobs": [
            {
                "name": f.name,
                "triage": f.triage,
                "status": f.status.value,
                "record": f.record.date.isoformat() if f.record is not None else None,
                "recorded": f.name in written,
                "units": [
                    {"path": u.path, "name": u.name, "line": u.line, "digest": u.digest}
                    for u in f.units
                ],
                "changed": [{"path": c.path, "name": c.name, "line": c.line} for c in f.changes],
            }
            for f in found
        ]
    }
    return json.dumps(document, indent=2)
