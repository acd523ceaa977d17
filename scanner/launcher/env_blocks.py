"""YAML mappings that set a run's environment: each entry is a write with its value.

A test harness or a launcher exports the entries of a named mapping (Megatron-LM's
functional tests: ``ENV_VARS: {NCCL_ALGO: Ring}``, the key named by
``Settings.env_blocks``); a CI system sets those of its own (GitHub Actions' ``env:``,
GitLab CI's ``variables:``, read by ``scanner.launcher.workflows``). A value is kept as
written (``1``, ``Ring``, ``"expandable_segments:True"`` unquoted); one that the system
expands when it sets it (``${X}``, ``${{ matrix.x }}``, ``$CI_PROJECT_DIR``), a null, a
list or a mapping has no value a reader of the file can state: None.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Final

import yaml

from scanner.languages import Language
from scanner.model import Write, WriteKind
from scanner.patterns import matches
from scanner.settings import Settings

_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NULL: Final = "tag:yaml.org,2002:null"


def block_writes(
    rel: str,
    block: yaml.MappingNode,
    function: str,
    settings: Settings,
    *,
    language: Language = Language.YAML,
    expanded: Sequence[str] = ("${", "$("),
) -> Iterator[Write]:
    """The writes of one environment mapping, at each entry's key; ``function`` is the
    mapping's key path; a value holding one of ``expanded`` is computed (None)."""
    for key, node in block.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag == _NULL:
            continue
        name = str(key.value)
        if not _NAME.match(name):
            continue
        if settings.match and not matches(name, settings.match):
            continue
        yield Write(
            name=name,
            path=rel,
            line=key.start_mark.line + 1,
            column=key.start_mark.column + 1,
            kind=WriteKind.BLOCK,
            function=function,
            value=scalar_value(node, expanded),
            language=language,
        )


def scalar_value(node: yaml.Node, expanded: Sequence[str]) -> str | None:
    """A scalar's text as written, unquoted; None for a null, a collection or a value
    the system expands (it holds one of ``expanded``)."""
    if not isinstance(node, yaml.ScalarNode) or (node.tag == _NULL and not node.style):
        return None
    value = str(node.value)
    if any(marker in value for marker in expanded):
        return None
    return value


def env_block_writes(
    rel: str,
    documents: Sequence[yaml.Node],
    settings: Settings,
    keys: frozenset[str] | None = None,
) -> list[Write]:
    """The writes of every mapping, at any depth, under a key ``keys`` names (by default
    ``settings.env_blocks``: ``ENV_VARS:``), sorted."""
    names = frozenset(settings.env_blocks) if keys is None else keys
    if not names:
        return []
    found: list[Write] = []
    seen: set[int] = set()
    stack: list[tuple[str, yaml.Node]] = [("", doc) for doc in documents]
    while stack:
        path, node = stack.pop()
        if id(node) in seen:
            continue  # an alias: the anchored node was read already
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                label = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
                where = f"{path}.{label}" if path else label
                if label in names and isinstance(value, yaml.MappingNode):
                    if id(value) not in seen:
                        seen.add(id(value))
                        found.extend(block_writes(rel, value, where, settings))
                else:
                    stack.append((where, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(node.value))
    return sorted(found, key=lambda w: w.sort_key)
