"""YAML configs: ``${VAR}``, ``${VAR:default}`` and ``${VAR:-default}`` inside values,
which the trainer's config loader replaces from the environment (Primus's loader,
OmegaConf's ``oc.env`` style). GitHub Actions' ``${{ ... }}`` is not one.

A value that is nothing but the read is judged by the type of the config key it
lands in: a switch for a boolean key, a value for a number or a string. The types
come from the trainer's config classes (``Settings.config_types``) and from the
literal values the tree's own YAML files give the same keys (a framework's module
defaults: ``micro_batch_size: 2``). Where no type is known, a true or false default
makes a switch, a key or variable named like a size or a count (``*_SIZE``, TP, PP,
``LOG_FREQ``) a value, and a 0 or 1 default alone nothing: the verdict is unknown.
Any other read is a value; one with no default is required (the loader stops when
the variable is unset).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final

import yaml

from scanner.conventions import OFF_WORDS, ON_WORDS, name_words, says_disable
from scanner.model import (
    VALUE_GATE,
    FileResult,
    Gate,
    GateKind,
    Polarity,
    ReadKind,
    Role,
    ScanError,
    Site,
    unknown_gate,
)
from scanner.patterns import matches
from scanner.roles import WORDS
from scanner.settings import Settings

INTERPOLATION: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-?([^}]*))?\}")
_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# The spellings YAML itself reads as booleans, and the numbers a switch may default to.
_TRUE: Final = frozenset({"true", "yes", "on", "y"})
_FALSE: Final = frozenset({"false", "no", "off", "n"})
_NUMBERS: Final = {"1": True, "0": False}
# The types a config key can have, as far as a verdict cares.
BOOL, NUMBER, TEXT, MIXED = "bool", "number", "text", "mixed"
_TAGS: Final = {
    "tag:yaml.org,2002:bool": BOOL,
    "tag:yaml.org,2002:int": NUMBER,
    "tag:yaml.org,2002:float": NUMBER,
    "tag:yaml.org,2002:str": TEXT,
}


@dataclass(frozen=True, slots=True)
class ConfigResult:
    result: FileResult
    error: ScanError | None = None


def analyse_yaml(rel: str, text: str, settings: Settings) -> ConfigResult:
    """The environment reads that the values of a YAML file interpolate, and the types
    its literal values give their keys. A file with no ``${`` is read for the types
    only: one that does not parse is no error (it holds no read)."""
    sites: list[Site] = []
    try:
        documents = list(yaml.compose_all(text, Loader=_LOADER))
    except yaml.YAMLError as exc:
        if "${" not in text:
            return ConfigResult(FileResult())
        mark = getattr(exc, "problem_mark", None)
        where = f" on line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "it is not valid YAML"
        return ConfigResult(
            FileResult(), ScanError(rel, f"Cannot parse the YAML{where}: {problem}.")
        )
    except RecursionError:
        if "${" not in text:
            return ConfigResult(FileResult())
        return ConfigResult(FileResult(), ScanError(rel, "The YAML is nested too deeply to read."))
    offsets = _line_offsets(text)
    scalars = [pair for doc in documents if doc is not None for pair in _scalars(doc)]
    own = key_types((leaf(key), node) for key, node in scalars)
    types = {**dict(own), **dict(settings.config_types)}
    for key, node in scalars:
        if "${" in str(node.value):
            sites.extend(_reads(rel, text, offsets, key, node, settings, types))
    return ConfigResult(
        FileResult(sites=tuple(sorted(sites, key=lambda s: s.sort_key)), config_keys=own)
    )


def leaf(key: str) -> str:
    """The last key of a key path: ``modules.trainer.overrides.micro_batch_size`` and
    ``layers[3]`` give ``micro_batch_size`` and ``layers``."""
    return re.sub(r"\[\d+\]$", "", key.rsplit(".", 1)[-1])


def key_types(pairs: Iterator[tuple[str, yaml.ScalarNode]]) -> tuple[tuple[str, str], ...]:
    """The type each key's literal values give it (``mixed`` when they disagree), sorted;
    interpolated values and nulls say nothing."""
    typed = [
        (key, _TAGS[node.tag])
        for key, node in pairs
        if node.tag in _TAGS and "${" not in str(node.value) and key and key != "?"
    ]
    return tuple(sorted(merge_types([typed]).items()))


def merge_types(tables: Iterable[Iterable[tuple[str, str]]]) -> dict[str, str]:
    """One table of key types from several tables of ``(key, type)`` pairs (``mixed``
    where they disagree)."""
    merged: dict[str, str] = {}
    for table in tables:
        for key, kind in table:
            merged[key] = kind if merged.get(key, kind) == kind else MIXED
    return merged


def _scalars(root: yaml.Node) -> Iterator[tuple[str, yaml.ScalarNode]]:
    """Every string scalar value, with the key path it lands in."""
    seen: set[int] = set()
    stack: list[tuple[str, yaml.Node]] = [("", root)]
    while stack:
        path, node = stack.pop()
        if id(node) in seen:
            continue  # an alias: the anchored node was visited already
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            yield path, node
        elif isinstance(node, yaml.MappingNode):
            for key, value in reversed(node.value):
                name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
                stack.append((f"{path}.{name}" if path else name, value))
        elif isinstance(node, yaml.SequenceNode):
            for index in reversed(range(len(node.value))):
                stack.append((f"{path}[{index}]", node.value[index]))


def _reads(
    rel: str,
    text: str,
    offsets: list[int],
    key: str,
    node: yaml.ScalarNode,
    settings: Settings,
    types: dict[str, str],
) -> Iterator[Site]:
    value = str(node.value)
    raw = text[node.start_mark.index : node.end_mark.index]
    searched = 0
    for hit in INTERPOLATION.finditer(value):
        name, default = hit.group(1), hit.group(2)
        if settings.match and not matches(name, settings.match):
            continue
        # Where the read sits in the file: found in the raw text when it is spelled there
        # as in the value (plain and quoted scalars), else at the start of the scalar.
        at = raw.find(hit.group(0), searched)
        if at >= 0:
            searched = at + len(hit.group(0))
            index = node.start_mark.index + at
        else:
            index = node.start_mark.index
        line = _line_of(offsets, index)
        whole = hit.group(0) == value.strip()
        target = leaf(key) if key else None
        gate = judge(name, default, target, types) if whole else VALUE_GATE
        yield Site(
            name=name,
            path=rel,
            line=line + 1,
            column=index - offsets[line] + 1,
            kind=ReadKind.INTERPOLATION if default is not None else ReadKind.REQUIRED,
            default=default,
            gate=gate,
            function=key or "<document>",
            language="yaml",
            target=target,
        )


def judge(name: str, default: str | None, key: str | None, types: Mapping[str, str]) -> Gate:
    """The verdict of a value that is the read ``${name:default}`` alone, landing in the
    config key ``key`` whose types ``types`` may know."""
    if default is None:
        return VALUE_GATE
    word = default.strip().lower()
    if word in _TRUE:
        default_on: bool | None = True
    elif word in _FALSE:
        default_on = False
    else:
        default_on = _NUMBERS.get(word)
    if default_on is None:
        return VALUE_GATE
    kind = types.get(key) if key is not None else None
    if kind in (NUMBER, TEXT):
        return VALUE_GATE
    if kind != BOOL and word in _NUMBERS:
        if _names_a_value(name, key):
            return VALUE_GATE
        where = f"the config key {key!r}" if key else "the document"
        known = "has values of several types" if kind == MIXED else "has no known type"
        return unknown_gate(
            f"its default is {default.strip()!r}, and {where} {known}: a 0 or 1 alone "
            "does not make a switch"
        )
    on, off = _family(default.strip())
    return Gate(
        kind=GateKind.BOOLEAN,
        default_on=default_on,
        off_value=off,
        on_value=on,
        off_values=(off,),
        on_values=(on,),
        polarity=Polarity.DISABLE if says_disable(name) else Polarity.ENABLE,
    )


def _names_a_value(name: str, key: str | None) -> bool:
    """Whether the variable or the key is named like a size, a count or a degree."""
    words = [*name_words(name), *(name_words(key) if key else ())]
    return any(w in WORDS[Role.VALUE] for w in words)


def _family(default: str) -> tuple[str, str]:
    """The on and off words of the convention the default is spelled in."""
    for on, off in zip(ON_WORDS, OFF_WORDS, strict=True):
        if default in (on, off):
            return on, off
    lowered = default.lower()
    return ("true", "false") if lowered in _TRUE | _FALSE else ("1", "0")


def _line_offsets(text: str) -> list[int]:
    return [0, *(hit.end() for hit in re.finditer("\n", text))]


def _line_of(offsets: list[int], index: int) -> int:
    return bisect_right(offsets, index) - 1
