"""The types of a trainer's config keys, read from the source of its config classes
(megatron-core's TransformerConfig, torchtitan's job config): never imported.

A class-level annotated field ``name: bool = False`` types the key ``name``; the
types a verdict needs are ``bool``, ``number`` (int, float) and ``text`` (str, a
Literal of strings), each also through ``Optional[...]`` or ``... | None``. Any
other annotation says nothing. A key two classes type differently is ``mixed``; tables
of several sources merge the same way (``config_verdict.merge_types``).
"""

from __future__ import annotations

import ast
from typing import Final

from scanner.launcher.config_verdict import BOOL, NUMBER, TEXT, merge_types
from scanner.source.ast_walk import walk

_NAMES: Final = {"bool": BOOL, "int": NUMBER, "float": NUMBER, "str": TEXT}


def field_types(source: str) -> dict[str, str]:
    """The type of every annotated class field of ``source`` that a verdict can use;
    empty when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    fields = [
        (statement.target.id, annotation_type(statement.annotation))
        for node in walk(tree)
        if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
    ]
    return merge_types([[(name, kind) for name, kind in fields if kind is not None]])


def annotation_type(node: ast.expr) -> str | None:
    """``bool``, ``number`` or ``text`` for an annotation that says so, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return annotation_type(ast.parse(node.value, mode="eval").body)  # "bool" quoted
        except SyntaxError:
            return None
    if isinstance(node, ast.Name):
        return _NAMES.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _optional(node.left, node.right)
    if isinstance(node, ast.Subscript):
        head = node.value.attr if isinstance(node.value, ast.Attribute) else None
        if isinstance(node.value, ast.Name):
            head = node.value.id
        if head == "Optional":
            return annotation_type(node.slice)
        if head == "Literal":
            values = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            strings = all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values)
            return TEXT if strings else None
        if head == "Union" and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2:
            return _optional(*node.slice.elts)
    return None


def _optional(left: ast.expr, right: ast.expr) -> str | None:
    """The type of ``X | None`` (either way round)."""
    for this, other in ((left, right), (right, left)):
        if isinstance(other, ast.Constant) and other.value is None:
            return annotation_type(this)
    return None
