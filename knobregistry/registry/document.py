"""YAML text to plain data, with the line and column of every key.

PyYAML is used only to compose nodes with its safe loaders (no object
construction), after compose.py has bounded the document's depth and size; this
module turns the nodes into dicts, lists and scalars itself, so that it can record
positions and refuse what PyYAML would silently accept: duplicate keys, tags other
than YAML's core ones, alias bombs, lone surrogates (`"\\ud800"`, which no UTF-8
file, terminal or environment can hold). Messages quote at most EXCERPT_CHARS of
the file's text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from knobregistry._io.digits import MAX_DIGITS, digit_count
from knobregistry._io.files import FileError, read_bytes
from knobregistry._text.surrogates import LONE_SURROGATE
from knobregistry.registry.compose import (
    MAX_DEPTH,
    TooBig,
    compose,
    too_deep,
    too_many_values,
)
from knobregistry.registry.compose import (
    MAX_NODES as MAX_NODES,  # re-exported: the registry's bounds are documented here
)
from knobregistry.registry.model import (
    KeyPath,
    RegistryError,
    RegistryProblem,
    cut,
    nearest_position,
)

MAX_BYTES = 8 * 1024 * 1024  # read no more: a registry is a few hundred kilobytes at most

_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = frozenset(_CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp"))
_MAP_TAG = _CORE + "map"
_SEQ_TAG = _CORE + "seq"
_MERGE_TAG = _CORE + "merge"


@dataclass(frozen=True, slots=True, kw_only=True)
class Document:
    """A parsed registry file: plain data, key positions, and loading problems."""

    path: str  # the path as shown in messages
    data: Any
    positions: Mapping[KeyPath, tuple[int, int]] = field(default_factory=dict)
    raw: Mapping[KeyPath, str] = field(default_factory=dict)  # plain scalars' source text
    problems: tuple[RegistryProblem, ...] = ()

    def position(self, key_path: KeyPath) -> tuple[int, int]:
        """The position of a key, or of its nearest ancestor that has one."""
        return nearest_position(self.positions, key_path)

    def problem(self, key_path: KeyPath, message: str) -> RegistryProblem:
        """A problem at the position of ``key_path``."""
        line, column = self.position(key_path)
        return RegistryProblem(
            path=self.path, line=line, column=column, key_path=key_path, message=message
        )


def read_document(file: Path, display: str | None = None) -> Document:
    """Read and parse a registry file; raises RegistryError when it cannot be parsed."""
    shown = display if display is not None else file.as_posix()
    try:
        data = read_bytes(file, MAX_BYTES)
    except FileError as exc:
        raise _fatal(shown, 0, 0, f"cannot read the registry: {exc.reason}.") from exc
    return parse_document(decode_document(data, shown), shown)


def decode_document(data: bytes, shown: str) -> str:
    """A registry's bytes as text: UTF-8 (a byte-order mark is dropped when parsed), as every
    command reads it, from a file or a git object; RegistryError naming the first byte that
    is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise _fatal(shown, line, column, "the file is not UTF-8 text; save it as UTF-8.") from exc


def parse_document(text: str, path: str = "registry.yaml") -> Document:
    """Parse registry text; raises RegistryError for invalid YAML or an empty file."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        root = compose(text)
    except TooBig as exc:
        raise _fatal(path, exc.line, exc.column, exc.message) from None
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(path, exc) from exc
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        character = chr(exc.character) if isinstance(exc.character, int) else exc.character
        message = f"invalid YAML: character {character!r} is not allowed in a YAML file."
        raise _fatal(path, line, column, message) from exc
    except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML error above has a mark
        raise _fatal(path, 1, 1, f"invalid YAML: {exc}") from exc
    if root is None:
        raise _fatal(path, 1, 1, "the file is empty; a registry starts with `version: 1`.")
    converter = _Converter(path)
    converter.positions[()] = _pos(root)
    try:
        data = converter.convert(root, (), 0)
    except TooBig as exc:
        raise _fatal(path, exc.line, exc.column, exc.message) from None
    return Document(
        path=path,
        data=data,
        positions=converter.positions,
        raw=converter.raw,
        problems=tuple(converter.problems),
    )


def _fatal(path: str, line: int, column: int, message: str) -> RegistryError:
    return RegistryError(
        [RegistryProblem(path=path, line=line, column=column, key_path=(), message=message)]
    )


def _yaml_error(path: str, exc: yaml.MarkedYAMLError) -> RegistryError:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    message = f"invalid YAML: {exc.problem or exc.context}"
    if exc.context and exc.problem and exc.context_mark is not None:
        start = exc.context_mark
        message += (
            f" ({exc.context} that starts at line {start.line + 1}, column {start.column + 1})"
        )
    if exc.problem and "'\\t'" in exc.problem:
        message += "; indent with spaces, not tabs"
    return _fatal(path, line, column, message + ".")


def _tag(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


def _pos(node: Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _too_big(node: Node, message: str) -> TooBig:
    return TooBig(*_pos(node), message)


def _surrogate_message(text: str, what: str) -> str | None:
    found = LONE_SURROGATE.search(text)
    if found is None:
        return None
    return (
        f"the {what} holds a lone surrogate ({found.group()!r}), half of a UTF-16 pair, which "
        "no UTF-8 file or environment can hold; write the character itself, or escape it as "
        "\\U and eight hex digits."
    )


class _Converter:
    """Walks composed nodes once, building plain data and recording positions."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.positions: dict[KeyPath, tuple[int, int]] = {}
        self.raw: dict[KeyPath, str] = {}
        self.problems: list[RegistryProblem] = []
        self.count = 0
        self.constructor = SafeConstructor()

    def problem(self, node: Node, key_path: KeyPath, message: str) -> None:
        line, column = _pos(node)
        self.problems.append(
            RegistryProblem(
                path=self.path, line=line, column=column, key_path=key_path, message=message
            )
        )

    def convert(self, node: Node, path: KeyPath, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise _too_big(node, too_many_values())
        if depth > MAX_DEPTH:
            raise _too_big(node, too_deep())
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ_TAG:
                self.problem(
                    node, path, f"the tag {cut(_tag(node.tag))} is not allowed; remove it."
                )
            items = []
            for index, child in enumerate(node.value):
                item_path = (*path, index)
                self.positions[item_path] = _pos(child)
                items.append(self.convert(child, item_path, depth + 1))
            return items
        assert isinstance(node, MappingNode)
        if node.tag != _MAP_TAG:
            self.problem(node, path, f"the tag {cut(_tag(node.tag))} is not allowed; remove it.")
        return self.mapping(node, path, depth)

    def scalar(self, node: ScalarNode, path: KeyPath) -> Any:
        if not node.style:  # plain: None from PyYAML, '' from libyaml
            self.raw[path] = node.value
        surrogate = _surrogate_message(node.value, "value")
        if surrogate is not None:
            self.problem(node, path, surrogate)
        if node.tag not in _SCALAR_TAGS:
            self.problem(
                node,
                path,
                f"the tag {cut(_tag(node.tag))} is not allowed; "
                "a registry holds only plain strings, numbers, booleans and dates.",
            )
            return node.value
        if node.tag == _CORE + "int" and digit_count(node.value) > MAX_DIGITS:
            self.problem(
                node,
                path,
                f"the number {cut(node.value)} has {digit_count(node.value)} digits, more than "
                f"the {MAX_DIGITS} a registry holds; write a smaller one, or quote it to keep "
                "it as a string.",
            )
            return node.value
        try:
            value = self.constructor.construct_object(node)
        except (ValueError, yaml.YAMLError):
            return node.value  # `2026-02-30`: a string; where a date is due, the schema says so
        if isinstance(value, (date, datetime)):
            return value.isoformat()
        return value

    def mapping(self, node: MappingNode, path: KeyPath, depth: int) -> dict[str, Any]:
        if depth > MAX_DEPTH:  # merge keys nest too: `&a {<<: *a}` would recurse forever
            raise _too_big(node, too_deep())
        result: dict[str, Any] = {}
        explicit = [(k, v) for k, v in node.value if k.tag != _MERGE_TAG]
        # Merge keys (`<<: *anchor`): explicit keys win, and earlier sources win over later.
        for source in reversed(self.merge_sources(node, path)):
            result.update(self.mapping(source, path, depth + 1))
        seen: dict[str, int] = {}
        for key_node, value_node in explicit:
            key = self.key(key_node, path)
            key_path = (*path, key)
            line = _pos(key_node)[0]
            if key in seen:
                self.problem(
                    key_node,
                    key_path,
                    f"duplicate key: '{cut(key)}' is already defined on "
                    f"line {seen[key]}, and YAML would silently keep only the last one. "
                    "Merge the two entries into one.",
                )
                continue
            seen[key] = line
            self.positions[key_path] = _pos(key_node)
            result[key] = self.convert(value_node, key_path, depth + 1)
        return result

    def merge_sources(self, node: MappingNode, path: KeyPath) -> list[MappingNode]:
        sources: list[MappingNode] = []
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE_TAG:
                continue
            values = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for value in values:
                if isinstance(value, MappingNode):
                    sources.append(value)
                else:
                    self.problem(
                        value,
                        path,
                        "a merge key (<<) takes a mapping or a list of "
                        "mappings, such as `<<: *defaults`.",
                    )
        return sources

    def key(self, node: Node, path: KeyPath) -> str:
        if not isinstance(node, ScalarNode):
            self.problem(node, path, "a key must be a plain string, not a mapping or a list.")
            return "<complex key>"
        surrogate = _surrogate_message(node.value, "key")
        if surrogate is not None:
            self.problem(node, (*path, node.value), surrogate)
        if node.tag == _CORE + "str":
            return str(node.value)
        if node.tag not in _SCALAR_TAGS:
            self.problem(
                node, (*path, node.value), f"the tag {cut(_tag(node.tag))} is not allowed."
            )
            return str(node.value)
        try:
            value = self.constructor.construct_object(node)
        except (ValueError, yaml.YAMLError):
            value = node.value
        if not isinstance(value, str):
            kind = type(value).__name__
            self.problem(
                node,
                (*path, node.value),
                f"YAML reads the key {cut(node.value)} as a "
                f"{_KIND.get(kind, kind)}, not a string; quote it: '{cut(node.value)}'.",
            )
        return str(node.value)


_KIND = {
    "bool": "boolean",
    "int": "integer",
    "float": "number",
    "NoneType": "null",
    "date": "date",
    "datetime": "timestamp",
}
