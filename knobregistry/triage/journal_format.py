"""What a journal's lines may hold: its JSON Schema (journal.schema.json) and the checks past
it, each problem said as `FIELD: PROBLEM`.

A journal is read back as untrusted input: whoever can write the triage folder can edit
it, and a resume takes the sweep's definition from it. So every line is checked before
anything runs, to the limits the command line itself enforces: `--runs` at least 2, a
compare mode and cost metric that parse, knob names that are names; integers are
integers and numbers finite (JSON's NaN, Infinity and 2.0 for 2 are refused).
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any

from knobregistry._text.printable import printable
from knobregistry._text.schema_words import TYPE_NAMES, either, fitting_branch
from knobregistry.triage.compare import parse_compare
from knobregistry.triage.cost import CostError, parse_cost
from knobregistry.triage.modes import CompareError
from knobregistry.triage.request import header_schema

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

KINDS = ("started", "run", "outcome")  # the lines after the header, by their one key
_TYPE_NAMES = {**TYPE_NAMES, "number": "a finite number"}


@functools.cache
def load_schema() -> dict[str, Any]:
    """The journal's JSON Schema, as shipped in the package, with the header's sweep
    parameters from their declaration (request.py)."""
    text = resources.files("knobregistry.triage").joinpath("journal.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    header = schema["$defs"]["header"]
    properties, required = header_schema()
    journal, format_, *rest = header["required"]
    header["required"] = [journal, format_, *required, *rest]
    header["properties"] = {**header["properties"], **properties}
    return schema


def _integer(_: object, value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(_: object, value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)


@functools.cache
def _validator(kind: str) -> Validator:
    from jsonschema import Draft202012Validator, validators  # only when a journal is read

    checker = Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _integer, "number": _number}
    )
    exact: type[Validator] = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, type_checker=checker
    )
    return exact({**load_schema(), "$ref": f"#/$defs/{kind}"})


def header_problem(record: object) -> str | None:
    """What is wrong with a journal's header line; None when nothing is."""
    found = _schema_problem(record, "header")
    if found is not None:
        return found
    assert isinstance(record, dict)
    for index, argument in enumerate(record["command"]):
        if not _passable(argument):
            return f"command[{index}]: not an argument this system can pass (a lone surrogate)"
    if not _passable(record["origin"]):
        return "origin: not a path this system can name (a lone surrogate)"
    try:
        parse_compare(record["compare"])
    except CompareError as exc:
        return f"compare: {exc}"
    cost, higher = record["cost"], record["cost_higher_is_better"]
    if cost is None and higher:
        return "cost_higher_is_better: true, with no cost metric it could be said of"
    try:
        if cost is not None:
            parse_cost(cost, higher)
    except CostError as exc:
        return f"cost: {exc}"
    return None


def line_problem(record: object, header: Mapping[str, Any]) -> str | None:
    """What is wrong with a line after the header (of the sweep ``header`` defines)."""
    kind = next(iter(record)) if isinstance(record, dict) and len(record) == 1 else None
    if kind not in KINDS:
        return f"not a line of a triage journal (an object of one key: {', '.join(KINDS)})"
    found = _schema_problem(record, kind)
    if found is not None:
        return found
    assert isinstance(record, dict)
    line: dict[str, Any] = record[kind]
    runs = header["runs"]
    if kind != "outcome" and line["index"] > runs:
        return f"{kind}.index: must be at most {runs}, the sweep's runs, got {line['index']}"
    if kind == "started":
        if line["group"] != line["pid"]:
            return f"started.group: a run leads its own group, {line['pid']}; got {line['group']}"
        return None
    strangers = [knob for knob in line["knobs"] if knob not in header["knobs"]]
    if strangers:
        return f"{kind}.knobs: {printable(strangers[0])} is not a candidate of the sweep"
    if kind == "outcome":
        if line["runs"] != runs:
            return f"outcome.runs: the sweep runs each setting {runs} times, got {line['runs']}"
        if len(line["samples"]) not in (0, runs):
            return f"outcome.samples: one per run ({runs}) or none, got {len(line['samples'])}"
    return None


def _passable(text: str) -> bool:
    try:
        os.fsencode(text)
    except UnicodeError:
        return False
    return True


def _schema_problem(record: Any, kind: str) -> str | None:
    errors = sorted(_validator(kind).iter_errors(record), key=_position)
    return _said(errors[0]) if errors else None


def _said(error: ValidationError) -> str:
    """`FIELD: PROBLEM` for one schema error (the fitting branch's, for a oneOf)."""
    path = list(error.absolute_path)
    keyword, value = error.validator, error.instance
    expected: Any = error.validator_value
    schema: Any = error.schema
    if keyword == "oneOf":
        branch = fitting_branch(error)
        if branch is not None:
            return _said(sorted(branch, key=_position)[0])
        kinds = [e.validator_value for e in error.context or () if e.validator == "type"]
        names = either(_TYPE_NAMES.get(k, k) for k in kinds if isinstance(k, str))
        return f"{_field(path)}: expected {names}, got {_got(value)}"
    if keyword == "required" and isinstance(value, dict):
        missing = next(name for name in expected if name not in value)
        return f"{_field([*path, missing])}: missing"
    if keyword == "additionalProperties" and isinstance(value, dict):
        extra = next(name for name in value if name not in schema.get("properties", {}))
        return f"{_field([*path, printable(extra)])}: not a field of this line"
    return f"{_field(path)}: {_problem(error)}"


def _position(error: ValidationError) -> list[str]:
    return [str(p) for p in error.absolute_path]


def _problem(error: ValidationError) -> str:
    keyword, value = error.validator, error.instance
    expected: Any = error.validator_value
    schema: Any = error.schema
    if keyword == "type":
        names = [expected] if isinstance(expected, str) else list(expected)
        return f"expected {either(_TYPE_NAMES.get(n, n) for n in names)}, got {_got(value)}"
    if keyword in ("enum", "const"):
        options = list(expected) if keyword == "enum" else [expected]
        return f"expected {either(json.dumps(o) for o in options)}, got {_got(value)}"
    if keyword == "minimum":
        return f"must be at least {expected}, got {_got(value)}"
    if keyword == "maximum":
        return f"must be at most {expected}, got {_got(value)}"
    if keyword in ("minItems", "minLength"):
        return "must not be empty"
    if keyword == "uniqueItems":
        return "lists the same value more than once"
    if keyword == "pattern":
        said = schema.get("patternErrorMessage", f"must match {expected}")
        return f"{said}, got {_got(value)}"
    return error.message  # pragma: no cover - every keyword the schema uses is handled above


def _field(path: list[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "the line"


def _got(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value)  # escapes what a terminal would act on; NaN stays NaN
    return text if len(text) <= 40 else text[:37] + "..."
