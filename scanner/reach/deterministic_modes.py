"""A carried value handed on under a keyword of the deterministic family
(``deterministic_output=``, where ``scanner.reach.keyword_branches`` takes ``deterministic=``):
a deterministic mode where the function it is handed to, or one that function hands the same
keyword on to, takes an atomic reduction when the value is false
(``ROUTE_BUFFER_TOPK_SUM if deterministic_output else ATOMIC_SCATTER``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from scanner.model import Outcome
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module, Tree
from scanner.reach.shapes import called
from scanner.reach.sides import Branch
from scanner.source.ast_walk import walk

FAMILY = "deterministic_"  # the keyword's prefix: deterministic_output=, deterministic_reduce=
MAX_HOPS = 3  # functions followed from the call the value is handed to

Function = ast.FunctionDef | ast.AsyncFunctionDef


def family(key: object) -> bool:
    """Whether ``key`` is a keyword of the deterministic family other than ``deterministic``
    itself (which ``keyword_branches.handed_as_flag`` reads)."""
    return isinstance(key, str) and key.startswith(FAMILY) and len(key) > len(FAMILY)


def handed_mode(
    module: Module,
    outer: ast.AST,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
) -> Branch | None:
    """The carried value handed on as ``deterministic_X=`` to a function of the tree that
    leaves an atomic reduction where it is true: a branch with no code of its own that
    reaches a deterministic mode where the value is true."""
    if not isinstance(outer, ast.keyword) or not family(outer.arg):
        return None
    call = module.parent(outer)
    if not isinstance(call, ast.Call) or outer.value is not carrier:
        return None
    assert outer.arg is not None
    atomic = atomic_choice(tree, module, call, outer.arg)
    if atomic is None:
        return None
    callee = module.resolve(called(call), module.owner_class(call)) or ""
    what, rel, line = atomic
    shown = (
        f"{outer.arg}= to {callee.rsplit('.', 1)[-1]} at {module.rel}:{outer.lineno}, "
        f"which takes {what} at {rel}:{line} where it is false"
    )
    taken = {value: (bool(outcome),) for value, outcome in outcomes}
    mark = Mark(MarkKind.DETERMINISM, shown, module.rel, outer.lineno)
    return Branch(module, (), module.owner_class(carrier), taken, carrier, True, marks=(mark,))


def modes_handed(
    module: Module,
    function: Function,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    after: int,
) -> Iterator[Branch]:
    """The local ``name`` of ``function`` (after line ``after``) handed on as
    ``deterministic_X=`` (``handed_mode``), wherever the call's result goes."""
    for call, key in module.arguments_passing(function).get(name, ()):
        if call.lineno <= after or not family(key):
            continue
        for keyword in call.keywords:
            if keyword.arg == key and isinstance(keyword.value, ast.Name):
                branch = handed_mode(module, keyword, keyword.value, outcomes, tree)
                if branch is not None:
                    yield branch


def atomic_choice(
    tree: Tree, module: Module, call: ast.Call, key: str, hops: int = 0
) -> tuple[str, str, int] | None:
    """Where the parameter ``key`` of the function ``call`` calls chooses an atomic
    reduction on its false side (followed through calls that hand the parameter on under
    the same keyword): the atomic's name, its module and line; None where none is found."""
    found = _callee(tree, module, call)
    if found is None:
        return None
    callee, function = found
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    if key not in names:
        return None
    for node in walk(function):
        if isinstance(node, ast.IfExp | ast.If):
            polarity = _tests(node.test, key)
            if polarity is not None:
                off = node.orelse if polarity else node.body
                atomic = _atomic_named(off if isinstance(off, list) else [off])
                if atomic is not None:
                    return atomic[0], callee.rel, atomic[1]
        elif isinstance(node, ast.Call) and hops < MAX_HOPS:
            handed = next((k for k in node.keywords if k.arg == key), None)
            if handed is not None and _names(handed.value, key):
                further = atomic_choice(tree, callee, node, key, hops + 1)
                if further is not None:
                    return further
    return None


def _tests(test: ast.expr, key: str) -> bool | None:
    """True where ``test`` is ``key`` (its body runs when the key holds), False where it is
    ``not key``, None otherwise."""
    if isinstance(test, ast.Name) and test.id == key:
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _tests(test.operand, key)
        return None if inner is None else not inner
    return None


def _names(value: ast.expr, key: str) -> bool:
    """``key`` itself, or ``bool(key)``."""
    if isinstance(value, ast.Name):
        return value.id == key
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "bool"
        and len(value.args) == 1
        and not value.keywords
        and _names(value.args[0], key)
    )


def _atomic_named(nodes: Sequence[ast.AST]) -> tuple[str, int] | None:
    """The first name or attribute in ``nodes`` that names an atomic operation
    (``OutputReduction.ATOMIC_SCATTER``, ``atomic_add``), with its line."""
    for top in nodes:
        for node in walk(top):
            last = (
                node.attr
                if isinstance(node, ast.Attribute)
                else node.id
                if isinstance(node, ast.Name)
                else None
            )
            if last is not None and "atomic" in last.lower().split("_"):
                return ast.unparse(node), getattr(node, "lineno", 0)
    return None


def _callee(tree: Tree, module: Module, call: ast.Call) -> tuple[Module, Function] | None:
    """The module-level function of the tree ``call`` calls, also where the import names a
    package the tree holds under a longer name (``import b12x.moe.x`` for ``pkg/b12x/moe/x.py``)."""
    dotted = module.resolve(called(call), module.owner_class(call))
    if dotted is None:
        return None
    package, _, name = dotted.rpartition(".")
    split = tree.split(dotted)
    if split is not None and split[1] == name:
        found = _defined(split[0], name)
        if found is not None:
            return found
    if not package:
        return None
    for rel in sorted(tree.rels()):
        full = tree.module_name_at(rel)
        if full is not None and full.endswith(f".{package}"):
            candidate = tree.module(rel)
            found = _defined(candidate, name) if candidate is not None else None
            if found is not None:
                return found
    return None


def _defined(module: Module, name: str) -> tuple[Module, Function] | None:
    """The module-level function ``name`` of ``module``."""
    for statement in module.tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and (
            statement.name == name
        ):
            return module, statement
    return None
