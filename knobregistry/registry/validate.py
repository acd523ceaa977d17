"""Validate a parsed registry against the shipped JSON Schema, one positioned problem per error."""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from knobregistry._io.validated import problems_unless_known_valid
from knobregistry._text.schema_words import TYPE_NAMES, either, fitting_branch
from knobregistry.registry.checks import semantic_problems
from knobregistry.registry.document import Document
from knobregistry.registry.model import KeyPath, RegistryProblem, cut, quote
from knobregistry.registry.schema import full_schema, schema_text

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

# Added to "missing required key" messages: what to write.
_REQUIRED_HINTS: dict[str | tuple[str | int, str], str] = {
    "version": "start the file with `version: 1`",
    "triage": "say whether the knob is 'reproducible', 'breaks-bitwise', 'untriaged' or "
    "'exempt' (use 'untriaged' until it has been measured)",
    "reason": "an exempt knob must say why it needs no triage",
    "kernel": "say in a few words which fused kernel the knob turns on",
    "description": "say in a sentence what it is for",
    "backend": "name the trainer the key belongs to (megatron, torchtitan, primus, ...)",
    "set": "say what to do with the selected knobs: off, on, deterministic or default",
    "date": "give the day of the run as YYYY-MM-DD",
    "verdict": "give what the run found: reproducible, breaks-bitwise or error",
    ("role", "reason"): "say what the proposal rests on, or write the role alone (`role: "
    "kernel`) once you have confirmed it",
    ("role", "proposed"): "name the proposed role, or write the role alone (`role: kernel`)",
}


@functools.cache
def load_schema() -> dict[str, Any]:
    """The registry's JSON Schema, its languages and compare modes filled in from their tables."""
    return full_schema()


@functools.cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # only when a registry is not known valid

    return Draft202012Validator(load_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)


def validate_document(doc: Document) -> tuple[RegistryProblem, ...]:
    """Every problem in a parsed registry: loading, schema and semantic ones, sorted."""
    problems = list(doc.problems)
    errors = problems_unless_known_valid(
        schema_text(), doc.data, lambda: list(_validator().iter_errors(doc.data))
    )
    for error in errors:
        problems.extend(_problems_for(doc, error))
    if isinstance(doc.data, dict):
        problems.extend(semantic_problems(doc))
    unique = {(p.line, p.column, p.key_path, p.message): p for p in problems}
    return tuple(sorted(unique.values(), key=lambda p: p.sort_key))


def _problems_for(doc: Document, error: ValidationError) -> Iterator[RegistryProblem]:
    path: KeyPath = tuple(error.absolute_path)
    keyword = error.validator
    instance = error.instance
    expected: Any = error.validator_value
    if "propertyNames" in error.absolute_schema_path:
        key_path = (*path, instance) if isinstance(instance, str) else path
        yield doc.problem(key_path, _pattern_message(error, instance))
    elif keyword == "additionalProperties" and isinstance(instance, dict):
        for extra in _extras(error.schema, instance):
            yield doc.problem((*path, extra), _unknown_key_message(extra, error.schema))
    elif keyword == "required" and isinstance(instance, dict):
        for name in expected:
            if name not in instance:
                yield doc.problem(path, _required_message(name, path))
    elif keyword == "oneOf" and (branch := fitting_branch(error)) is not None:
        for inner in branch:
            yield from _problems_for(doc, inner)
    else:
        yield doc.problem(path, _message(doc, path, error))


def _message(doc: Document, path: KeyPath, error: ValidationError) -> str:
    keyword = error.validator
    value = error.instance
    expected: Any = error.validator_value
    got = _got(doc, path, value)
    if keyword == "type":
        names = [expected] if isinstance(expected, str) else list(expected)
        message = f"expected {either(TYPE_NAMES.get(n, n) for n in names)}, got {got}"
        raw = doc.raw.get(path)
        if "string" in names and raw and not isinstance(value, (str, dict, list)):
            message += f"; quote it to keep it a string: {json.dumps(cut(raw))}"
        return message
    if keyword == "enum":
        options = list(expected)
        if any(isinstance(o, str) for o in options):  # `set: off` may also be YAML's false
            options = [o for o in options if not isinstance(o, bool)]
        return f"expected one of {_listing(options)}, got {got}"
    if keyword == "const":
        return f"expected {_literal(expected)}, got {got}"
    if keyword == "pattern":
        return _pattern_message(error, value)
    if keyword == "format" and expected == "date":
        return f"expected a valid date written YYYY-MM-DD, got {got}"
    if keyword in ("minLength", "minItems", "minProperties"):
        return "must not be empty"
    if keyword == "minimum":
        return f"must be at least {expected}, got {got}"
    if keyword == "uniqueItems":
        return "lists the same value more than once; remove the repeats"
    if keyword == "oneOf":
        return f"expected {either(_alternatives(expected))}, got {got}"
    return error.message  # pragma: no cover - every keyword the schema uses is handled above


def _alternatives(branches: list[dict[str, Any]]) -> list[str]:
    """What each alternative of a oneOf accepts, in words (a $ref'd enum is a string)."""
    kinds = [TYPE_NAMES.get(str(b.get("type", "string")), "a string") for b in branches]
    return list(dict.fromkeys(kinds))


def _pattern_message(error: ValidationError, value: Any) -> str:
    hint = error.schema.get("patternErrorMessage") if isinstance(error.schema, dict) else None
    shown = _literal(value)
    return f"{shown} is not valid here: {hint}" if hint else f"{shown} is not valid here"


def _extras(schema: Any, instance: dict[str, Any]) -> list[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        key
        for key in instance
        if key not in properties and not any(re.search(p, key) for p in patterns)
    ]


def _unknown_key_message(key: str, schema: Any) -> str:
    allowed = list(schema.get("properties", {}))
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    if close:
        return f"unknown key; did you mean '{close[0]}'?"
    return f"unknown key; the keys allowed here are {_listing(allowed)}"


def _required_message(name: str, path: KeyPath) -> str:
    hint = _REQUIRED_HINTS.get((path[-1], name) if path else name) or _REQUIRED_HINTS.get(name)
    return f"missing required key '{name}'; {hint}." if hint else f"missing required key '{name}'."


def _got(doc: Document, path: KeyPath, value: Any) -> str:
    """The offending value as the user wrote it, with what YAML made of it where that differs."""
    raw = doc.raw.get(path)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing" if not raw else f"{cut(raw)} (null)"
    if isinstance(value, str):
        return quote(value)
    if raw is not None and raw != _literal(value) and isinstance(value, bool):
        return quote(raw)
    kind = {bool: "the boolean", int: "the integer", float: "the number"}.get(type(value), "")
    return f"{kind} {cut(raw) if raw is not None else _literal(value)}".strip()


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return quote(value)
    return cut(str(value))


def _listing(values: Iterable[Any]) -> str:
    return ", ".join(_literal(v) for v in values)
