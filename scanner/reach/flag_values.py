"""A value knob that the code writes as the value of a flag the catalogue knows.

XLA reads its settings as flags in one variable (``XLA_FLAGS``); a launcher may build that
list from variables of its own (``f"--xla_gpu_autotune_level={level} "``, where
``level = os.getenv("XLA_GPU_AUTOTUNE_LEVEL", "4")``). The catalogue says which value of the
flag a bitwise run needs (scanner.stack_settings.FLAGS, generated from it), so such a knob,
whose default gives the flag another value, chooses between what that value gives and what
the catalogue's gives: the recipe writes the catalogue's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Final

from scanner.languages import Language
from scanner.model import GateKind, Knob, Role, Site
from scanner.reach.modules import Module, Tree
from scanner.roles import Evidence
from scanner.source.ast_walk import walk
from scanner.stack_settings import FLAGS

# flag -> (the variable that holds it, its deterministic value, what it controls)
_KNOWN: Final[Mapping[str, tuple[str, str, str]]] = MappingProxyType(
    {flag: (variable, value, meaning) for flag, variable, value, meaning in FLAGS}
)
_KNOWN_BYTES: Final = tuple(f"{flag}=".encode() for flag in _KNOWN)
# A flag that ends a piece of literal text, its value to follow: `... --xla_gpu_autotune_level=`
_FLAG_BEFORE_VALUE = re.compile(r"(?:^|\s)(--?[A-Za-z0-9][A-Za-z0-9_-]*)=$")


class FlagFiles:
    """Which of a tree's modules name a catalogued flag: read once each, so that only those
    are parsed for a value knob."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._names: dict[str, bool] = {}

    def names_a_flag(self, rel: str) -> bool:
        """Whether the module at ``rel`` holds a catalogued flag's text (``--x_level=``); the
        knob being judged has read it (a kept result is found again when it changes)."""
        reads = self.tree.reads
        if reads is not None:
            reads.module(rel)
        known = self._names.get(rel)
        if known is None:
            data = self.tree.data(rel)
            known = data is not None and any(flag in data for flag in _KNOWN_BYTES)
            self._names[rel] = known
        return known


def flag_value(knob: Knob, files: FlagFiles) -> Evidence | None:
    """A kernel choice, for a value knob read into a name that an f-string in the same scope
    writes as a catalogued flag's value, whose default is not the catalogue's value."""
    if knob.kind is not GateKind.VALUE:
        return None
    for site in knob.sites:
        if site.language is not Language.PYTHON or site.default is None:
            continue
        if not files.names_a_flag(site.path):
            continue
        module = files.tree.module_at(site.path)
        if module is None:
            continue
        for flag, line in _flags_fed(module, site):
            variable, value, meaning = _KNOWN[flag]
            if site.default == value:
                return None  # unset, the flag already has the deterministic value
            return Evidence(
                Role.KERNEL,
                f"read at {site.path}:{site.line} with the default {site.default!r}, its value "
                f"is written as {flag}= at {site.path}:{line}, a flag of {variable} ({meaning}); "
                f"the catalogue's deterministic value of {flag} is {value!r}",
                value=value,
                default_reaches=True,
            )
    return None


def _flags_fed(module: Module, site: Site) -> Iterator[tuple[str, int]]:
    """Each catalogued flag an f-string in the site's scope gives the read's value, with the
    f-string's line."""
    scope: ast.AST = module.function_node_around_line(site.line) or module.tree
    names = _bound_at(scope, site.line)
    for node in walk(scope):
        if not isinstance(node, ast.JoinedStr):
            continue
        for before, part in zip(node.values, node.values[1:], strict=False):
            if not (
                isinstance(before, ast.Constant)
                and isinstance(before.value, str)
                and isinstance(part, ast.FormattedValue)
                and _is_the_read(part.value, names, site.line)
            ):
                continue
            found = _FLAG_BEFORE_VALUE.search(before.value)
            if found is not None and found.group(1) in _KNOWN:
                yield found.group(1), _line_of(module, node, f"{found.group(1)}={{")


def _line_of(module: Module, node: ast.JoinedStr, text: str) -> int:
    """The line of ``node`` (strings written one after another span several) that holds
    ``text``; its first line where none does."""
    last = min(node.end_lineno or node.lineno, len(module.lines))
    for line in range(node.lineno, last + 1):
        if text in module.lines[line - 1]:
            return line
    return node.lineno


def _bound_at(scope: ast.AST, line: int) -> frozenset[str]:
    """The names an assignment that spans ``line`` binds (``level = os.getenv(...)``)."""
    names: set[str] = set()
    for node in walk(scope):
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        if not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


def _is_the_read(value: ast.expr, names: frozenset[str], line: int) -> bool:
    """Whether ``value`` is a name the read is bound to, or the read itself."""
    if isinstance(value, ast.Name):
        return value.id in names
    return isinstance(value, ast.Call) and value.lineno <= line <= (value.end_lineno or line)
