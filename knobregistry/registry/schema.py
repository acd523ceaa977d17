"""The registry's JSON Schema in full: schema.json, with the two lists it does not hold by
hand filled in from their tables, the languages (scanner/languages.py) and the compare
modes of `knobs triage` (knobregistry/triage/modes/).

schema.json keeps a one-line placeholder where each list goes (itself valid JSON Schema: a
string), so that the file a registry in this repository names stays a schema an editor
reads. Validation and `knobs init`'s copy both use ``schema_text``, the text with each
placeholder replaced, laid out as the rest of the file.

The modes are read from their modules' source, not imported: the triage room sits above
this one (tests/test_layering.py), and importing it would cost every `knobs check` the
import of triage. A mode declares ``name``, ``argument`` and ``place`` as literals.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knobregistry._text.schema_words import either
from scanner.languages import LANGUAGES

SCHEMA = Path(__file__).with_name("schema.json")
MODES = Path(__file__).parents[1] / "triage" / "modes"  # one module per compare mode


@dataclass(frozen=True, slots=True)
class ModeName:
    """What the schema says of a compare mode: how it is written, in its place."""

    name: str
    argument: str  # "" when the mode takes none
    place: int

    @property
    def usage(self) -> str:
        """``name:ARGUMENT``, or the name alone."""
        return f"{self.name}:{self.argument}" if self.argument else self.name


def language_names() -> tuple[str, ...]:
    """The languages the scanner reads, in the table's order."""
    return tuple(row.language.value for row in LANGUAGES)


def mode_names(folder: Path = MODES) -> tuple[ModeName, ...]:
    """Each ``MODE = Mode(...)`` declared by a module of ``folder``, in ``place`` order."""
    found = []
    for path in sorted(folder.glob("*.py")):
        declared = _declared_mode(path)
        if declared is not None:
            found.append(declared)
    return tuple(sorted(found, key=lambda mode: mode.place))


_LITERALS = ("name", "argument", "place")


def _declared_mode(path: Path) -> ModeName | None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["MODE"]
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == "Mode"
        ):
            continue
        words = {k.arg: k.value for k in node.value.keywords if k.arg is not None}
        try:
            name, argument, place = (ast.literal_eval(words[k]) for k in _LITERALS)
        except (KeyError, ValueError) as exc:
            raise ValueError(
                f"{path}: MODE = Mode(...) must give name, argument and place as literals "
                "(the registry's schema reads them from the source)"
            ) from exc
        return ModeName(str(name), str(argument), int(place))
    return None


def _languages_node() -> dict[str, Any]:
    names = language_names()
    return {"description": f"The language: {either(names)}.", "enum": list(names)}


def _compare_node() -> dict[str, Any]:
    modes = mode_names()
    bare = [re.escape(m.name) for m in modes if not m.argument]
    taking = [re.escape(m.name) for m in modes if m.argument]
    branches = [*bare, f"({'|'.join(taking)}):.+"] if taking else bare
    usages = [m.usage for m in modes]
    return {
        "description": "How outputs were compared: " + either(f"`{u}`" for u in usages) + ".",
        "type": "string",
        "pattern": f"^({'|'.join(branches)})$",
        "patternErrorMessage": f"write {either(usages)}",
    }


# Where each list goes in schema.json, and what fills it.
FILLED: tuple[tuple[tuple[str, ...], Callable[[], dict[str, Any]]], ...] = (
    (("$defs", "scan", "properties", "languages", "additionalProperties"), _languages_node),
    (("$defs", "record", "properties", "compare"), _compare_node),
)


@functools.cache
def schema_text() -> str:
    """The registry's JSON Schema as `knobs init` writes it and validation reads it."""
    text = SCHEMA.read_text("utf-8")
    data = json.loads(text)
    for keys, fill in FILLED:
        placeholder = json.dumps(functools.reduce(lambda node, key: node[key], keys, data))
        if text.count(placeholder) != 1:
            raise ValueError(f"{SCHEMA}: {'.'.join(keys)} must be written on one line, once")
        start = text.index(placeholder)
        indent = text[text.rindex("\n", 0, start) + 1 : start]
        indent = indent[: len(indent) - len(indent.lstrip(" "))]
        filled = json.dumps(fill(), indent=2).replace("\n", "\n" + indent)
        text = text.replace(placeholder, filled)
    return text


def full_schema() -> dict[str, Any]:
    """The registry's JSON Schema, the lists filled in (a new dict each call)."""
    schema: dict[str, Any] = json.loads(schema_text())
    return schema
