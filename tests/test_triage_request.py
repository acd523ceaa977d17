"""SweepRequest is the one declaration of a sweep's parameters: the command line has each,
the journal's header keeps each (and its schema bounds each), and a resume gives each
back through click's default_map, where what is typed still wins."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import click
import pytest

from knobregistry.commands.triage import triage_command
from knobregistry.triage.journal import Journal
from knobregistry.triage.journal_format import header_problem, load_schema
from knobregistry.triage.request import SweepRequest, differences
from knobregistry.triage.sweep_header import Header

PARAMETERS = [f.name for f in fields(SweepRequest)]


def option(name: str) -> click.Parameter:
    (found,) = [p for p in triage_command.params if p.name == name]
    return found


def other_value(name: str) -> Any:
    """A value of parameter ``name`` that is not its default, from its command-line type."""
    param = option(name)
    if isinstance(param, click.Argument):
        return ("python3", "job.py", "--steps", "2")
    if isinstance(param, click.Option) and param.is_flag:
        return True
    if param.multiple:
        return ("K_ONE", "K_TWO")
    if isinstance(param.type, click.Choice):
        return param.type.choices[0]
    if isinstance(param.type, click.IntRange):
        return SweepRequest.default(name) + 1
    for text in ("regex:step ([0-9]+)", "fast"):  # the first the journal takes for it
        values: dict[str, Any] = {"command": ("true",), name: text}
        header = header_of(SweepRequest(**values))
        if header_problem(journal_header(header)) is None:
            return text
    raise AssertionError(f"no sample text is a valid {name}: add one")


def journal_header(header: Header) -> dict[str, Any]:
    """The header line as a journal holds it."""
    line = header.to_json() | {"runs_folder": "knobs-runs-" + "0" * 16, "seal": None}
    found: dict[str, Any] = json.loads(json.dumps(line))
    return found


def header_of(request: SweepRequest) -> Header:
    return Header(**request.values(), origin="/work", registry="r.yaml", registry_sha256="0" * 64)


def parsed(args: list[str]) -> SweepRequest:
    with triage_command.make_context("triage", args) as context:
        return SweepRequest.from_values(context.params)


def test_every_parameter_is_one_of_the_command_line_with_its_default() -> None:
    with triage_command.make_context("triage", ["--", "true"]) as context:
        given = context.params
    assert {name: given[name] for name in PARAMETERS} == {
        **SweepRequest().values(),
        "command": ("true",),
    }


def test_the_header_schema_is_the_declaration() -> None:
    header = load_schema()["$defs"]["header"]
    own = {"journal", "format", "origin", "registry", "registry_sha256", "runs_folder", "seal"}
    assert set(header["properties"]) == own | set(PARAMETERS)
    assert set(header["required"]) == own | set(PARAMETERS) - {"allow_known_breaking"}


@pytest.mark.parametrize("name", PARAMETERS)
def test_a_journal_keeps_each_parameter_and_a_resume_gives_it_back(
    tmp_path: Path, name: str
) -> None:
    values: dict[str, Any] = {"command": ("python3", "job.py"), name: other_value(name)}
    if name == "cost_higher_is_better":  # said only of a regex metric
        values["cost"] = "regex:x ([0-9]+)"
    request = SweepRequest(**values)
    assert request != SweepRequest(command=values["command"]) or name == "command"
    header = header_of(request)
    Journal.create(tmp_path, header)
    assert Journal.open(tmp_path).header == header  # checked by the schema, read back whole
    assert parsed(["--resume", str(tmp_path)]) == request


def test_what_is_typed_on_resume_wins_over_the_journal(tmp_path: Path) -> None:
    request = SweepRequest(command=("python3", "job.py"), compare="regex:loss", runs=3, pairs=True)
    Journal.create(tmp_path, header_of(request))
    typed = parsed(["--resume", str(tmp_path), "--runs", "5", "--", "python3", "other.py"])
    assert typed == SweepRequest(
        command=("python3", "other.py"), compare="regex:loss", runs=5, pairs=True
    )


def test_two_requests_differ_by_each_parameter_in_one_line() -> None:
    base = SweepRequest(command=("python3", "job.py"))
    for name in PARAMETERS:
        changed = SweepRequest(**{**base.values(), name: other_value(name)})
        (line,) = differences(base, changed)
        assert line.startswith(f"{name.replace('_', ' ')}: ")
        assert line.endswith(" now")
