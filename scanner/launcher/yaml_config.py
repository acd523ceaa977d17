"""YAML configs: ``${VAR}``, ``${VAR:default}`` and ``${VAR:-default}`` inside values,
which the trainer's config loader replaces from the environment (Primus's loader,
OmegaConf's ``oc.env`` style). GitHub Actions' ``${{ ... }}`` is not one.

A value that is nothing but the read, with an on or off word as its default, is a
switch of the config key it lands in; any other is a value; one with no default
is required (the loader stops when the variable is unset).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import yaml

from scanner.conventions import OFF_LIKE, OFF_WORDS, ON_LIKE, ON_WORDS, says_disable
from scanner.model import (
    VALUE_GATE,
    FileResult,
    Gate,
    GateKind,
    Polarity,
    ReadKind,
    ScanError,
    Site,
)
from scanner.patterns import matches
from scanner.settings import Settings

INTERPOLATION: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-?([^}]*))?\}")
_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# The spellings YAML itself reads as booleans, besides the on and off words.
_TRUE: Final = frozenset({"true", "yes", "on", "y"})
_FALSE: Final = frozenset({"false", "no", "off", "n"})


@dataclass(frozen=True, slots=True)
class ConfigResult:
    result: FileResult
    error: ScanError | None = None


def analyse_yaml(rel: str, text: str, settings: Settings) -> ConfigResult:
    """The environment reads that the values of a YAML file interpolate."""
    sites: list[Site] = []
    try:
        documents = list(yaml.compose_all(text, Loader=_LOADER))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" on line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "it is not valid YAML"
        return ConfigResult(
            FileResult(), ScanError(rel, f"Cannot parse the YAML{where}: {problem}.")
        )
    except RecursionError:
        return ConfigResult(FileResult(), ScanError(rel, "The YAML is nested too deeply to read."))
    offsets = _line_offsets(text)
    for document in documents:
        if document is None:
            continue
        for key, node in _scalars(document):
            sites.extend(_reads(rel, text, offsets, key, node, settings))
    return ConfigResult(FileResult(sites=tuple(sorted(sites, key=lambda s: s.sort_key))))


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
            if node.tag == "tag:yaml.org,2002:str" or "${" in str(node.value):
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
        yield Site(
            name=name,
            path=rel,
            line=line + 1,
            column=index - offsets[line] + 1,
            kind=ReadKind.INTERPOLATION if default is not None else ReadKind.REQUIRED,
            default=default,
            gate=_verdict(name, default, whole),
            function=key or "<document>",
            language="yaml",
        )


def _verdict(name: str, default: str | None, whole: bool) -> Gate:
    """A switch when the value is the read alone and its default an on or off word."""
    if default is None or not whole:
        return VALUE_GATE
    word = default.strip().lower()
    if word in _TRUE or word in ON_LIKE - {""}:
        default_on = True
    elif word in _FALSE or (word in OFF_LIKE and word != ""):
        default_on = False
    else:
        return VALUE_GATE
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
