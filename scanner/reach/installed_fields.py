"""The fields of a config class that a method of the class installs into the environment.

ROLL's pipeline config declares ``system_envs: dict = field(default_factory=dict)``
(roll/configs/base_config.py:232) and its ``__post_init__`` does
``os.environ.update(self.system_envs)`` (:342); the Hydra YAML that fills the config gives the
mapping (``system_envs: {NCCL_ALGO: Ring}``). A field the class declares in its body
(an annotated class attribute: what a dataclass, Hydra or OmegaConf fills from a config
file) and that a method of the same class hands whole to ``os.environ.update(self.F)``, or
loops over with ``for N, V in self.F.items():`` writing the variable N, is such a field. An
attribute set only in ``__init__`` from a parameter (``self.env = env``) is not one: no
config file names it."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import Final

from scanner.reach.modules import Tree
from scanner.reach.table_writes import environ, writes_named
from scanner.source.ast_walk import walk

# The shapes, in bytes: a module with neither is not parsed for them.
_SHAPE: Final = re.compile(
    rb"environ\.update\(\s*self\.(\w+)\s*\)|for\s+\w+\s*,\s*\w+\s+in\s+self\.(\w+)\.items\(\)"
)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def may_install(data: bytes) -> bool:
    """Whether a module's bytes have a shape of installing a field: the modules
    ``installed_fields`` parses."""
    # Either shape writes the environment by name (``environ``, or ``putenv`` in the loop):
    # a module without either word is passed over before the slower pattern.
    if b"environ" not in data and b"putenv" not in data:
        return False
    return _SHAPE.search(data) is not None


def installed_fields(tree: Tree, rels: Sequence[str], configs: bytes) -> frozenset[str]:
    """The names of the config fields the classes of the modules ``rels`` (those
    ``may_install`` accepts) install into the environment, of those a config file may fill:
    ``F:`` stands in ``configs`` (the tree's YAML files, joined). A module none of whose
    shapes names such an F is not parsed (a warm scan of torch parsed 108 modules for none)."""
    found: set[str] = set()
    for rel in rels:
        data = tree.data(rel)
        if data is None or not any(
            name + b":" in configs for shape in _SHAPE.findall(data) for name in shape if name
        ):
            continue
        module = tree.module(rel)
        if module is None:
            continue
        for node in walk(module.tree):
            if isinstance(node, ast.ClassDef):
                declared = {
                    s.target.id
                    for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                }
                found.update(
                    f
                    for s in node.body
                    if isinstance(s, _FUNCTIONS)
                    for f in _installed(s)
                    if f in declared and f.encode() + b":" in configs
                )
    return frozenset(found)


def _installed(method: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[str]:
    """Each F of ``self.F`` that ``method`` installs into the environment."""
    for node in walk(method):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "update"
            and environ(node.func.value)
            and len(node.args) == 1
            and not node.keywords
        ):
            field = _self_field(node.args[0])
            if field is not None:
                yield field
        elif (
            isinstance(node, ast.For)
            and isinstance(node.target, ast.Tuple)
            and len(node.target.elts) == 2
            and isinstance(node.target.elts[0], ast.Name)
            and isinstance(node.iter, ast.Call)
            and not node.iter.args
            and isinstance(node.iter.func, ast.Attribute)
            and node.iter.func.attr == "items"
            and writes_named(node, node.target.elts[0].id)
        ):
            field = _self_field(node.iter.func.value)
            if field is not None:
                yield field


def _self_field(node: ast.expr) -> str | None:
    """F of ``self.F``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None
