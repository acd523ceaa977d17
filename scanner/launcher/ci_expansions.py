"""GitLab CI's own expansions: ``$X`` and ``${X}`` in the values of a CI file outside its
scripts (a ``variables:`` value, ``image:``), which GitLab replaces from its variables
before any shell runs. ``$$`` is a literal dollar. Each is a read of X used as a value;
``rules: if:`` expressions (tests GitLab evaluates itself) are not read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import yaml

from scanner.conventions import is_launch_fact
from scanner.languages import Language
from scanner.model import LAUNCH_GATE, VALUE_GATE, ReadKind, Site
from scanner.patterns import matches
from scanner.settings import Settings

_NAME: Final = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)")
SKIPPED_KEYS: Final = frozenset({"before_script", "script", "after_script", "rules", "only"})


def expansion_reads(rel: str, source: str, root: yaml.Node, settings: Settings) -> Iterator[Site]:
    """The reads of every value of ``root`` outside its scripts and rules."""
    seen: set[int] = set()
    stack: list[tuple[str, yaml.Node]] = [("", root)]
    while stack:
        path, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if "$" in str(node.value):
                yield from _reads(rel, source, path, node, settings)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                label = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
                if label not in SKIPPED_KEYS:
                    stack.append((f"{path}.{label}" if path else label, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(node.value))


def _reads(
    rel: str, source: str, path: str, node: yaml.ScalarNode, settings: Settings
) -> Iterator[Site]:
    value = str(node.value)
    start = node.start_mark
    raw = source[start.index : node.end_mark.index]
    spelled = start.line == node.end_mark.line and raw.find(value) >= 0
    offset = raw.find(value) if spelled else 0
    at = value.find("$")
    while at >= 0:
        if value.startswith("$$", at):
            at = value.find("$", at + 2)
            continue
        found = _NAME.match(value, at + 1)
        if found is None:
            at = value.find("$", at + 1)
            continue
        name = found.group(1) or found.group(2)
        if not settings.match or matches(name, settings.match):
            facts = (*settings.launch_facts, "CI_*", "GITLAB_*")
            yield Site(
                name=name,
                path=rel,
                line=start.line + 1,
                column=start.column + offset + at + 1 if spelled else start.column + 1,
                kind=ReadKind.EXPANSION,
                default=None,
                gate=LAUNCH_GATE if is_launch_fact(name, facts) else VALUE_GATE,
                function=path,
                language=Language.CI,
            )
        at = value.find("$", found.end())
