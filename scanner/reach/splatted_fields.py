"""A config object's fields splatted into a constructor: ``Attention(**self.model_dump())``.

A config class's ``build`` may hand every field it declares to the class it builds as
keywords (InternLM/xtuner b934f46 xtuner/v1/module/attention/dsa_mla.py:170-203:
``DSAMultiLatentAttention(**self.model_dump(), hidden_size=...)`` in ``DSAMLAConfig``, which
declares ``sparse_mla_backend`` at :178). The field lands in the constructor's parameter of
the same name (:216), which the constructor tests or hands on (``get_sparse_mla(
sparse_mla_backend)`` at :243): where the field is read, so is that parameter.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from scanner.reach.carriers import Carriers
from scanner.reach.modules import Module, Tree
from scanner.source.ast_walk import walk

# ``self.model_dump()`` (pydantic 2), ``self.dict()`` (pydantic 1): every field, by name.
_DUMPS = frozenset({"model_dump", "dict"})
# ``vars(self)``, ``asdict(self)`` / ``dataclasses.asdict(self)``: the same.
_FUNCTIONS = frozenset({"vars", "asdict"})


def splatted_fields(
    key: str, tree: Tree, carriers: Carriers
) -> Iterator[tuple[Module, ast.FunctionDef, str]]:
    """The constructors of the tree's classes that the classes declaring field ``key``
    splat their own fields into, where ``key`` is a parameter of theirs: each with its
    module, and how the field comes there as evidence says it."""
    for rel in carriers.modules_naming(None, key):
        module = tree.module(rel)
        if module is None:
            continue
        for cls in module.tree.body:
            if isinstance(cls, ast.ClassDef) and _declares(cls, key):
                yield from _constructors(module, cls, key, tree)


def _declares(cls: ast.ClassDef, key: str) -> bool:
    """Whether the class body declares field ``key`` (``key: T = default``)."""
    return any(
        isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == key
        for s in cls.body
    )


def _constructors(
    module: Module, cls: ast.ClassDef, key: str, tree: Tree
) -> Iterator[tuple[Module, ast.FunctionDef, str]]:
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for call in walk(method):
            if not isinstance(call, ast.Call) or not any(
                k.arg is None and _dumps_self(k.value) for k in call.keywords
            ):
                continue
            dotted = module.resolve(call.func, cls.name)
            split = tree.split(tree.reexported(dotted)) if dotted is not None else None
            if split is None or not isinstance(split[0].definitions.get(split[1]), ast.ClassDef):
                continue
            init = split[0].definitions.get(f"{split[1]}.__init__")
            if isinstance(init, ast.FunctionDef) and _parameter(init, key):
                via = (
                    f"the field `{key}` of {cls.name}, handed to {split[1]} with the "
                    f"others at {module.rel}:{call.lineno}"
                )
                yield split[0], init, via


def _dumps_self(node: ast.expr) -> bool:
    """``self.model_dump()``, ``self.dict()``, ``vars(self)``, ``asdict(self)``."""
    if not isinstance(node, ast.Call) or node.keywords:
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _DUMPS and not node.args:
        return _is_self(func.value)
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in _FUNCTIONS and len(node.args) == 1 and _is_self(node.args[0])


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _parameter(init: ast.FunctionDef, key: str) -> bool:
    arguments = init.args
    return any(a.arg == key for a in (*arguments.args, *arguments.kwonlyargs))
