"""The methods a call on a parameter typed with a ``typing.Protocol`` of the tree may run.

``def _get_layer_memoize(repo: RepositoryProtocol, ...)`` then ``repo.load()``
(huggingface/kernels 8ac69fc, kernels/src/kernels/layer/layer.py:600-606, the protocol
at layer/repos.py:14-15) calls the ``load`` of whatever object the caller hands in; a
protocol is matched by structure, not inheritance, so its implementations are the tree's
classes that define its methods (``LayerRepository.load``, layer.py:101, and five more).
They are looked for in the modules that name the protocol (its own, and those that
import it: the classes written to fit it), each a call that runs sometimes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final

from scanner.reach.modules import Module, Tree

PROTOCOLS: Final = frozenset({"typing.Protocol", "typing_extensions.Protocol"})
MAX_IMPLEMENTATIONS = 8  # a protocol more classes fit is too vague to follow
MAX_BASES = 4  # protocols a protocol extends, followed for the methods it declares

ClassNamed = Callable[[str], "tuple[Module, str, ast.ClassDef] | None"]


def annotated_class(module: Module, node: ast.Name) -> str | None:
    """The class the parameter ``node`` names is annotated with, in the function it sits
    in and where it is never rebound (``repo: RepositoryProtocol``); None otherwise."""
    function = module.function_node_around(node)
    if function is None or node.id in module.local_bindings(function):
        return None
    return parameter_class(module, function, node.id)


def parameter_class(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> str | None:
    """The dotted name a parameter of ``function`` is annotated with (``repo:
    RepositoryProtocol``, or quoted: ``"RepositoryProtocol"``), resolved in ``module``."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    annotation = next((a.annotation for a in every if a.arg == name), None)
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if not isinstance(annotation, ast.Name | ast.Attribute):
        return None
    return module.resolve(annotation)


def naming_modules(tree: Tree, name: str) -> tuple[str, ...]:
    """The modules whose text holds ``name`` (one read of the tree: ask once per name)."""
    needle = name.encode()
    return tree.matching(lambda data: needle in data)[0]


def implementations(
    tree: Tree,
    class_named: ClassNamed,
    naming: Callable[[str], tuple[str, ...]],
    protocol: str,
    method: str,
) -> list[str]:
    """The methods ``method`` of the tree's classes that fit ``protocol`` (a class of the
    tree that is a ``typing.Protocol``), by their dotted names (``naming``: the modules
    whose text holds a name); empty when ``protocol`` is no protocol, declares no such
    method, or more classes fit than can be followed."""
    located = class_named(protocol)
    if located is None or not _is_protocol(located[0], located[2]):
        return []
    home, local, _ = located
    declared = _declared(class_named, protocol)
    if method not in declared:
        return []
    name = local.rpartition(".")[2]
    tree.asked(home.name, name)  # a module that comes to name it may hold a new one
    found: list[str] = []
    for rel in sorted({home.rel, *naming(name)}):
        module = tree.module(rel)
        if module is None:
            continue
        for cls, definition in module.definitions.items():
            if (
                "." not in cls
                and isinstance(definition, ast.ClassDef)
                and not _is_protocol(module, definition)
                and declared <= _methods(definition)
            ):
                found.append(module.qualified(f"{cls}.{method}"))
    return found if len(found) <= MAX_IMPLEMENTATIONS else []


def _is_protocol(module: Module, node: ast.ClassDef) -> bool:
    """Whether ``node`` is a protocol class: ``typing.Protocol`` among its own bases."""
    for base in node.bases:
        if isinstance(base, ast.Subscript):  # Protocol[T]
            base = base.value
        if module.resolve(base) in PROTOCOLS:
            return True
    return False


def _declared(class_named: ClassNamed, protocol: str) -> frozenset[str]:
    """The methods ``protocol`` declares, with those of the protocols it extends."""
    found: set[str] = set()
    pending, seen = [protocol], set[str]()
    while pending and len(seen) < MAX_BASES:
        dotted = pending.pop(0)
        located = class_named(dotted)
        if dotted in seen or located is None or not _is_protocol(located[0], located[2]):
            continue
        seen.add(dotted)
        module, _, node = located
        found |= _methods(node)
        pending.extend(d for d in map(module.resolve, node.bases) if d is not None)
    return frozenset(found)


def _methods(node: ast.ClassDef) -> set[str]:
    """The methods a class body defines itself."""
    return {s.name for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
