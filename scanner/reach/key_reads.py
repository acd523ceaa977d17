"""The reads of a config key in the tree's code: ``args.key``, ``getattr(cfg, "key", d)``,
``cfg.get("key", d)``, ``cfg["key"]``, wherever the object came from."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from scanner.reach.carriers import Carriers
from scanner.reach.modules import Module, Tree

MAX_CONFIG_USES = 32  # reads of one config key followed
MAX_CONFIG_MODULES = 40  # modules naming a key: more, and the name is too common to follow
# A key worth following: a trainer's config key has a word and an underscore, or is long
# (``use_turbo_deepep``, ``deterministic``); ``-e`` of ``docker run`` or ``model`` is not one.
KEY = re.compile(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\Z|[A-Za-z][A-Za-z0-9]{7,}\Z")


def key_reads(key: str, tree: Tree, carriers: Carriers) -> list[tuple[Module, ast.expr]] | None:
    """The reads of config key ``key`` in the tree; None where too many modules name it."""
    named = carriers.modules_naming(None, key)
    if len(named) > MAX_CONFIG_MODULES:
        return None
    return [
        (module, read)
        for rel in named
        if (module := tree.module(rel)) is not None
        for read in _reads(module, key)
    ][:MAX_CONFIG_USES]


def _reads(module: Module, key: str) -> Iterator[ast.expr]:
    """The reads of config key ``key`` in ``module``."""
    for node in module.locate.mentioning(key):
        if (
            (
                isinstance(node, ast.Attribute)
                and node.attr == key
                and isinstance(node.ctx, ast.Load)
            )
            or (isinstance(node, ast.Call) and _names_key(node, key))
            or (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.slice, ast.Constant)
                and node.slice.value == key
            )
        ):
            yield node


def _names_key(call: ast.Call, key: str) -> bool:
    """``getattr(obj, "key", d)`` or ``obj.get("key", d)``."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "getattr" and len(call.args) >= 2:
        name = call.args[1]
    elif isinstance(func, ast.Attribute) and func.attr == "get" and call.args:
        name = call.args[0]
    else:
        return False
    return isinstance(name, ast.Constant) and name.value == key
