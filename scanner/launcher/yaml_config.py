"""YAML configs: ``${VAR}``, ``${VAR:default}`` and ``${VAR:-default}`` inside values,
which the trainer's config loader replaces from the environment (Primus's loader), and
OmegaConf's resolvers ``${oc.env:VAR}``, ``${oc.env:VAR,default}`` and the older
``${env:VAR,default}``. GitHub Actions' ``${{ ... }}`` is not one. The entries of a
mapping that sets the environment (``ENV_VARS:``) are writes (``env_blocks``).

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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import yaml

from scanner.conventions import is_launch_fact
from scanner.languages import Language
from scanner.launcher.config_verdict import BOOL, NUMBER, TEXT, config_key, judge, merge_types
from scanner.launcher.env_blocks import env_block_writes
from scanner.launcher.shell_syntax import SHELL_VARIABLES
from scanner.launcher.yaml_documents import compose
from scanner.model import (
    LAUNCH_GATE,
    VALUE_GATE,
    FileResult,
    LauncherRead,
    ReadKind,
    ScanError,
    Site,
)
from scanner.patterns import matches
from scanner.settings import Settings

_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESOLVERS: Final = ("oc.env:", "env:")  # OmegaConf's: ${oc.env:VAR,default}
_HYDRA: Final = frozenset({"defaults", "hydra"})  # the top-level keys of a Hydra config
_NODE_PATH: Final = re.compile(r"\$\{(?:\.+[A-Za-z_]|[A-Za-z_]\w*\.[A-Za-z_])")  # ${a.b}, ${..x}
MAX_MISSES: Final = 64  # reads of one scalar not spelled in its text as in its value
_TAGS: Final = {
    "tag:yaml.org,2002:bool": BOOL,
    "tag:yaml.org,2002:int": NUMBER,
    "tag:yaml.org,2002:float": NUMBER,
    "tag:yaml.org,2002:str": TEXT,
}


@dataclass(frozen=True, slots=True)
class Interpolation:
    """``${name}`` (``default`` None), ``${name:default}`` or ``${name:-default}``."""

    text: str
    name: str
    default: str | None
    resolver: bool = False  # OmegaConf's ``${oc.env:...}`` or ``${env:...}``


@dataclass(frozen=True, slots=True)
class References:
    """What a plain ``${name}`` in a document can refer to other than the environment: a
    key at the top of the same document (OmegaConf resolves ``${name}`` from the root), or,
    in a document OmegaConf reads (``omegaconf``), any node and any resolver: there only
    ``${oc.env:...}`` reads. A Hydra config (a top-level ``defaults:`` list or ``hydra:``) composes
    keys from other files and calls resolvers (``${now:%H}``); a document that interpolates a
    node path (``${a.b}``, ``${..x}``) or calls an ``oc.`` resolver is OmegaConf's too (a
    custom resolver it registers: ``${mul:${..x},2}``)."""

    keys: frozenset[str]
    omegaconf: bool


def node_references(doc: yaml.Node, values: Iterable[str]) -> References:
    """The top-level keys of ``doc`` and whether OmegaConf reads it; ``values``: its scalars."""
    if not isinstance(doc, yaml.MappingNode):
        return References(frozenset(), omegaconf=False)
    keys = frozenset(str(k.value) for k, _ in doc.value if isinstance(k, yaml.ScalarNode))
    # Hydra's ``defaults:`` is a list of the files it composes; a mapping under that key is
    # a config's own section (``defaults: {fused_norm: true}``).
    hydra = any(
        isinstance(k, yaml.ScalarNode)
        and k.value in _HYDRA
        and (k.value != "defaults" or isinstance(v, yaml.SequenceNode))
        for k, v in doc.value
    )
    omegaconf = hydra or any(_NODE_PATH.search(v) for v in values if "${" in v)
    return References(keys, omegaconf=omegaconf)


def read_yaml(rel: str, data: bytes, text: str, settings: Settings, path: Path) -> LauncherRead:
    """A YAML config's reader (see scanner.languages)."""
    return analyse_yaml(rel, text, settings)


def analyse_yaml(rel: str, text: str, settings: Settings) -> LauncherRead:
    """The environment reads that the values of a YAML file interpolate, the writes of
    its environment mappings, and the types its literal values give their keys. A file
    with no ``${`` is read for the types and writes only: one that does not parse is no
    error (it holds no read)."""
    sites: list[Site] = []
    documents = compose(rel, text)
    if isinstance(documents, ScanError):
        return LauncherRead(FileResult(), documents if "${" in text else None)
    offsets = _line_offsets(text)
    writes = env_block_writes(rel, documents, settings)
    scalars = [list(_scalars(doc)) for doc in documents]
    own = key_types((leaf(key), node) for pairs in scalars for key, node in pairs)
    types = {**dict(own), **dict(settings.config_types)}
    for doc, pairs in zip(documents, scalars, strict=True):
        references = node_references(doc, (str(node.value) for _, node in pairs))
        for key, node in pairs:
            if "${" in str(node.value):
                found = _reads(rel, text, offsets, key, node, settings, types, references)
                sites.extend(found)
    return LauncherRead(
        FileResult(
            sites=tuple(sorted(sites, key=lambda s: s.sort_key)),
            writes=tuple(writes),
            config_keys=own,
        )
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


# What bash sets for the script itself and never exports (${PPID}, ${RANDOM}, ${LINENO}):
# a ${NAME} of these in a value is shell text, not a read of the environment. PWD, OLDPWD,
# SHLVL, COLUMNS and LINES do reach programs' environments, and stay reads.
_SHELL_ONLY: Final = SHELL_VARIABLES - {"PWD", "OLDPWD", "SHLVL", "COLUMNS", "LINES"}


def _reads(
    rel: str,
    text: str,
    offsets: list[int],
    key: str,
    node: yaml.ScalarNode,
    settings: Settings,
    types: dict[str, str],
    references: References,
) -> Iterator[Site]:
    value = str(node.value)
    raw = text[node.start_mark.index : node.end_mark.index]
    searched = misses = 0
    for hit in interpolations(value):
        name, default = hit.name, hit.default
        if settings.match and not matches(name, settings.match):
            continue
        if not hit.resolver and (references.omegaconf or name in references.keys):
            continue  # a node of the config, or a Hydra resolver's call: no read
        if name in _SHELL_ONLY:
            continue  # a shell script held in a value (a hook's `entry:`) reads its own
        # Where the read sits in the file: found in the raw text when it is spelled there
        # as in the value (plain and quoted scalars), else at the start of the scalar. A
        # search that misses reads the rest of the scalar: after MAX_MISSES of them, the
        # remaining reads of the scalar are put at its start without one.
        at = raw.find(hit.text, searched) if misses < MAX_MISSES else -1
        if at >= 0:
            searched = at + len(hit.text)
            index = node.start_mark.index + at
        else:
            misses += 1
            index = node.start_mark.index
        line = _line_of(offsets, index)
        whole = hit.text == value.strip()
        target = leaf(key) if key else None
        where = config_key(target)
        if is_launch_fact(name, settings.launch_facts):
            gate = LAUNCH_GATE
        else:
            gate = judge(name, default, target, types, where) if whole else VALUE_GATE
        yield Site(
            name=name,
            path=rel,
            line=line + 1,
            column=index - offsets[line] + 1,
            kind=ReadKind.INTERPOLATION if default is not None else ReadKind.REQUIRED,
            default=default,
            gate=gate,
            function=key or "<document>",
            language=Language.YAML,
            target=target,
        )


def interpolations(value: str) -> Iterator[Interpolation]:
    """The interpolations in ``value``, left to right: ``${`` and a name, then ``}``, or
    ``:``, an optional ``-``, the default and the first ``}`` after it. One pass: a regular
    expression for the same (``[^}]*`` for the default) tries the rest of the value again
    at every ``${`` that no ``}`` follows, a time that grows with the square of its length."""
    at = value.find("${")
    while at >= 0:
        resolved = _resolver(value, at)
        if resolved is not None:
            hit, end = resolved
            if hit is not None:
                yield hit
            at = value.find("${", end)
            continue
        name = _NAME.match(value, at + 2)
        end = name.end() if name is not None else at + 2
        if name is not None and value.startswith("}", end):
            yield Interpolation(value[at : end + 1], name.group(), None)
            at = value.find("${", end + 1)
        elif name is not None and value.startswith(":", end):
            close = value.find("}", end + 1)
            if close < 0:
                return  # no interpolation ends after here
            start = end + 2 if value.startswith("-", end + 1) else end + 1
            yield Interpolation(value[at : close + 1], name.group(), value[start:close])
            at = value.find("${", close + 1)
        else:
            at = value.find("${", at + 2)


def _resolver(value: str, at: int) -> tuple[Interpolation | None, int] | None:
    """At an OmegaConf resolver call ``${oc.env:VAR,default}`` starting at ``at``: the read
    (None when the variable is not a plain name) and where the call ends; None when
    there is no resolver call there. The default runs to the brace that closes the call
    (it may hold interpolations of its own) and loses its quotes."""
    prefix = next((p for p in _RESOLVERS if value.startswith(p, at + 2)), None)
    if prefix is None:
        return None
    start = at + 2 + len(prefix)
    depth, index = 1, start
    while index < len(value) and depth:
        depth += {"{": 1, "}": -1}.get(value[index], 0)
        index += 1
    if depth:
        return None, len(value)  # never closed: no read
    inside = value[start : index - 1]
    name, comma, rest = inside.partition(",")
    name = name.strip()
    if not _NAME.fullmatch(name):
        return None, index
    default: str | None = None
    if comma:
        default = rest.strip()
        if len(default) >= 2 and default[0] == default[-1] and default[0] in "'\"":
            default = default[1:-1]
    return Interpolation(value[at:index], name, default, resolver=True), index


def _line_offsets(text: str) -> list[int]:
    return [0, *(hit.end() for hit in re.finditer("\n", text))]


def _line_of(offsets: list[int], index: int) -> int:
    return bisect_right(offsets, index) - 1
