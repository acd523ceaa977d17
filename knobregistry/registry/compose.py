"""YAML text to composed nodes, with nesting depth and the number of values bounded first.

PyYAML's composer is recursive: a document nested a few hundred levels deep
raises RecursionError in it (and would overflow the C stack in libyaml's). The
event stream is flat, so it is read first, and only a document within the bounds
is composed. libyaml parses and composes when PyYAML was built with it (its
scanner is some thirty times faster than PyYAML's own); on any error there, the
text is parsed again by PyYAML alone, whose error messages are the documented ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias

import yaml
from yaml.nodes import Node

MAX_NODES = 100_000
MAX_DEPTH = 64

_SEQUENCE, _KEY_NEXT, _VALUE_NEXT = 0, 1, 2
Loader: TypeAlias = Any  # a PyYAML loader class: SafeLoader, or CSafeLoader where built


class TooBig(Exception):
    """A document past a bound, at the 1-based position of the node that crossed it."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


def loaders() -> tuple[Loader, ...]:
    """The loaders tried in order: libyaml's when present, then PyYAML's own."""
    fast = getattr(yaml, "CSafeLoader", None)
    return (fast, yaml.SafeLoader) if fast is not None else (yaml.SafeLoader,)


def compose(text: str, tried: Sequence[Loader] | None = None) -> Node | None:
    """The root node of ``text`` (None when empty); raises TooBig or PyYAML's YAMLError."""
    order = tuple(tried) if tried is not None else loaders()
    for loader in order[:-1]:
        try:
            return _compose(text, loader)
        except (yaml.YAMLError, ValueError):  # ValueError: a lone surrogate libyaml cannot encode
            continue
    return _compose(text, order[-1])


def _compose(text: str, loader: Loader) -> Node | None:
    check_bounds(yaml.parse(text, Loader=loader))
    return yaml.compose(text, Loader=loader)


def check_bounds(events: Iterable[yaml.Event]) -> None:
    """Raise TooBig at the first node deeper than MAX_DEPTH or past MAX_NODES values.

    Keys are not counted as values; an alias counts once (the converter counts what
    it expands to).
    """
    stack: list[int] = []  # per open collection: a sequence, or a mapping awaiting a key / value
    values = 0
    for event in events:
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            stack.pop()
            continue
        if not isinstance(event, yaml.NodeEvent):  # scalars, aliases, collection starts
            continue
        top = stack[-1] if stack else _SEQUENCE
        if top == _KEY_NEXT:
            stack[-1] = _VALUE_NEXT
        else:
            if top == _VALUE_NEXT:
                stack[-1] = _KEY_NEXT
            values += 1
            if values > MAX_NODES:
                raise _at(event, too_many_values())
        if len(stack) > MAX_DEPTH:
            raise _at(event, too_deep())
        if isinstance(event, yaml.MappingStartEvent):
            stack.append(_KEY_NEXT)
        elif isinstance(event, yaml.SequenceStartEvent):
            stack.append(_SEQUENCE)


def too_many_values() -> str:
    """The message for a document past MAX_NODES values."""
    return (
        f"the document expands to more than {MAX_NODES} values; "
        "remove the aliases that repeat large parts of it."
    )


def too_deep() -> str:
    """The message for a document nested past MAX_DEPTH."""
    return f"the document nests deeper than {MAX_DEPTH} levels."


def _at(event: yaml.Event, message: str) -> TooBig:
    mark = event.start_mark
    if mark is None:  # pragma: no cover - both parsers mark every event
        return TooBig(1, 1, message)
    return TooBig(mark.line + 1, mark.column + 1, message)
