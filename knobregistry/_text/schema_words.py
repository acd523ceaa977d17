"""What a JSON Schema error says, in words shared by the registry's and the journal's checks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def fitting_branch(error: ValidationError) -> list[ValidationError] | None:
    """The errors of the one alternative of a oneOf whose type the value has (`role: kernal`
    is a string, so the string alternative's); None when not exactly one has its type."""
    branches: dict[int, list[ValidationError]] = {}
    for inner in error.context or ():
        branches.setdefault(int(inner.relative_schema_path[0]), []).append(inner)
    fitting = [errors for errors in branches.values() if not any(map(_wrong_kind, errors))]
    return fitting[0] if len(fitting) == 1 else None


def _wrong_kind(error: ValidationError) -> bool:
    """Whether an error says the value itself is of the wrong kind for its alternative."""
    if error.relative_path:
        return False
    if error.validator == "type":
        return True
    expected: Any = error.validator_value
    options: list[Any] = list(expected) if error.validator == "enum" else []
    return bool(options) and not any(type(o) is type(error.instance) for o in options)


def either(names: Iterable[str]) -> str:
    """`a, b or c`, each name once."""
    items = list(dict.fromkeys(names))
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
