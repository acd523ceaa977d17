"""What a sweep is, as asked: `SweepRequest`, the one declaration of the parameters that
define a sweep.

Each field is one parameter: its name is the `knobs triage` parameter's, its default the
command line's, and its metadata says how the journal's JSON Schema bounds it and how a
person reads it. Everything else is derived from the fields: the journal's header
(sweep_header.py), the schema of that header (journal_format.py), the values a resume
supplies as the command line's defaults (click's ``default_map``), and the lines that
say how two sweeps differ. A new parameter is a new field here, and nothing else.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, dataclass, field, fields
from typing import Any

from knobregistry._text.printable import printable


@dataclass(frozen=True, slots=True)
class Parameter:
    """How the journal bounds a sweep parameter and how a person reads it."""

    schema: Mapping[str, Any]  # the JSON Schema of its value in the journal's header
    shown: Callable[[Any], str]
    required: bool = True  # False: journals of earlier versions lack it (read as the default)

    @staticmethod
    def of(declared: Field[Any]) -> Parameter:
        found = declared.metadata["parameter"]
        assert isinstance(found, Parameter)
        return found


def shown_command(command: Sequence[str]) -> str:
    """A command as a shell would take it, in backquotes, safe to print on a terminal."""
    return f"`{printable(shlex.join(command))}`"


def _shown(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(map(str, value)) or "none"
    return str(value)


def _parameter(
    default: Any,
    schema: Mapping[str, Any],
    shown: Callable[[Any], str] = _shown,
    required: bool = True,
) -> Any:
    return field(default=default, metadata={"parameter": Parameter(schema, shown, required)})


class Refused(Exception):
    """A sweep that cannot start as asked; the message says what to change."""


_PROFILE = {
    "type": "string",
    "pattern": "^[a-z][a-z0-9_-]*$",
    "patternErrorMessage": "a profile name is lower-case letters, digits, '-' and '_', "
    "starting with a letter",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepRequest:
    """A sweep as asked for on the command line (or taken from a journal by a resume).

    A journal resumes only a sweep of the same request; the CLI builds one from its
    parameters of the same names, and `triage/use_case.py` runs it.
    """

    command: tuple[str, ...] = _parameter(
        (),
        {"description": "The command as typed.", "type": "array", "minItems": 1}
        | {"items": {"$ref": "#/$defs/argument"}},
        shown_command,
    )
    compare: str = _parameter("stdout", {"type": "string", "minLength": 1})
    knobs: tuple[str, ...] = _parameter(  # the candidates, once resolved
        (), {"type": "array", "items": {"$ref": "#/$defs/knob"}, "uniqueItems": True}
    )
    profile: str | None = _parameter(None, {"oneOf": [{"type": "null"}, _PROFILE]})
    runs: int = _parameter(2, {"type": "integer", "minimum": 2})
    pairs: bool = _parameter(False, {"type": "boolean"})
    bisect: bool = _parameter(False, {"type": "boolean"})
    cost: str | None = _parameter(None, {"type": ["string", "null"], "minLength": 1})
    cost_higher_is_better: bool = _parameter(False, {"type": "boolean"})
    search: str | None = _parameter(None, {"enum": [None, "fastest-bitwise"]})
    allow_known_breaking: bool = _parameter(False, {"type": "boolean"}, required=False)

    @classmethod
    def parameters(cls) -> tuple[Field[Any], ...]:
        """The sweep's parameters, in declaration order (a subclass's own fields left out)."""
        return fields(SweepRequest)

    @staticmethod
    def default(name: str) -> Any:
        """The default of parameter ``name``: the command line's."""
        return next(f.default for f in SweepRequest.parameters() if f.name == name)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> SweepRequest:
        """The request of ``values`` (the CLI's parameters, or a journal's header): every
        parameter is taken from it; a list becomes a tuple."""
        return SweepRequest(**request_values(values))

    def values(self) -> dict[str, Any]:
        """The parameters by name: a resume's defaults for the command line (default_map)."""
        return {f.name: getattr(self, f.name) for f in self.parameters()}

    @property
    def request(self) -> SweepRequest:
        """Only the sweep's parameters (of a journal's header, say)."""
        return SweepRequest(**self.values())


def request_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep parameters of ``values``, typed as SweepRequest holds them; an absent
    optional parameter is its default."""
    typed: dict[str, Any] = {}
    for declared in SweepRequest.parameters():
        if declared.name not in values and not Parameter.of(declared).required:
            typed[declared.name] = declared.default
            continue
        value = values[declared.name]
        typed[declared.name] = tuple(value) if isinstance(value, list) else value
    return typed


def header_schema() -> tuple[dict[str, Any], list[str]]:
    """The JSON Schema properties of the sweep parameters in a journal's header, and
    those it requires."""
    declared = SweepRequest.parameters()
    properties = {f.name: dict(Parameter.of(f).schema) for f in declared}
    return properties, [f.name for f in declared if Parameter.of(f).required]


def differences(then: SweepRequest, now: SweepRequest) -> list[str]:
    """What differs between two requests, one line per parameter."""
    lines = []
    for declared in SweepRequest.parameters():
        shown = Parameter.of(declared).shown
        before, after = shown(getattr(then, declared.name)), shown(getattr(now, declared.name))
        if before != after:
            label = declared.name.replace("_", " ")
            lines.append(f"{label}: {before} in the journal, {after} now")
    return lines
