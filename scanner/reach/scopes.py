"""The names a function binds for itself, which hide the module's names of the same spelling.

Inside ``def _check_with(error_type, cond, message)`` the name ``cond`` is the parameter,
not the ``cond`` the module imports (torch 2.13.0 torch/__init__.py:1712 beside
``from torch._higher_order_ops import cond``, :2874): a call of it runs what the caller
handed in. Python decides this by scope: a name a function assigns, takes as a parameter,
binds in a ``for``, ``with``, ``except``, ``match`` or nested ``def`` is local to it (unless
it declares it ``global`` or ``nonlocal``); a lambda's parameters and a comprehension's
targets are local to them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

from scanner.source.ast_walk import children, walk

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = (*_FUNCTIONS, *_COMPREHENSIONS)
_SCOPE_TYPES = frozenset(_SCOPES)
# The nodes that may bind a name in a scope (``_scoped_names``).
_BINDING = frozenset(
    {
        ast.arg,
        ast.Name,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.ExceptHandler,
        ast.MatchAs,
        ast.MatchStar,
        ast.MatchMapping,
    }
)


class Scopes:
    """The local names of each function, lambda and comprehension of one module (read once)."""

    def __init__(self, tree: ast.Module) -> None:
        self._own: dict[int, frozenset[str]] = {}  # by scope, found when first asked
        # Every node of the module in ``ast.walk``'s order, and the names bound in some
        # scope (the only names to look up), found in one walk.
        self.nodes, self.bound = _scoped_names(tree)

    def _names(self, scope: ast.AST) -> frozenset[str] | None:
        known = self._own.get(id(scope))
        if known is None:
            if isinstance(scope, _FUNCTIONS):
                known = _function_names(scope)
            elif isinstance(scope, _COMPREHENSIONS):
                known = frozenset(_targets(g.target for g in scope.generators))
            else:
                return None
            self._own[id(scope)] = known
        return known

    def hides(
        self, name: str, ancestors: Callable[[ast.AST], Iterator[ast.AST]], node: ast.AST
    ) -> bool:
        """Whether ``node`` (a load of ``name``) sits in a scope that binds ``name`` itself,
        or in one nested in such a scope; ``ancestors`` gives the nodes around a node."""
        if name not in self.bound:
            return False
        inner: ast.AST = node
        below: ast.AST = node  # the node under ``inner`` on the way (a generator's iterable)
        for outer in ancestors(node):
            own = self._names(outer)
            if own is not None and name in own and _within(outer, inner, below):
                return True
            if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef) and _declares(outer, name):
                return False  # ``global name`` (or nonlocal: bound further out, checked there)
            inner, below = outer, inner
        return False


def _scoped_names(tree: ast.Module) -> tuple[tuple[ast.AST, ...], frozenset[str]]:
    """Every node of ``tree`` in ``ast.walk``'s order, and every name some function, lambda
    or comprehension of it may bind for itself (more, never fewer: a filter), in one pass;
    module-level statements bind none. Every node of every module the reach reads passes
    here: its type is looked up once (``ast.parse`` gives nodes of the exact classes), and
    only the nodes that may bind a name are tested further."""
    names: set[str] = set()
    nodes: list[ast.AST] = [tree]
    inside: list[bool] = [False]  # whether each node of ``nodes`` sits in a scope
    at = 0
    while at < len(nodes):
        node, within = nodes[at], inside[at]
        at += 1
        kind = type(node)
        if kind not in _BINDING:
            pass
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif within:
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) or (
                isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name
            ):
                names.add(node.name)  # type: ignore[arg-type]
            elif isinstance(node, ast.MatchMapping) and node.rest:
                names.add(node.rest)
        below = children(node)
        if below:
            nodes.extend(below)
            inside.extend([within or kind in _SCOPE_TYPES] * len(below))
    return tuple(nodes), frozenset(names)


def _within(scope: ast.AST, inner: ast.AST, below: ast.AST) -> bool:
    """Whether ``inner`` (a child of ``scope``, ``below`` its child on the way) is evaluated
    in ``scope``'s own namespace: a function's defaults, annotations and decorators are
    evaluated outside it, a comprehension's first iterable too."""
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return any(inner is s for s in scope.body)
    if isinstance(scope, ast.Lambda):
        return inner is scope.body
    if isinstance(scope, _COMPREHENSIONS):
        first = scope.generators[0] if scope.generators else None
        return not (first is not None and inner is first and below is first.iter)
    return True


def _declares(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    return any(
        isinstance(s, ast.Global | ast.Nonlocal) and name in s.names for s in _own_nodes(function)
    )


def _function_names(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
) -> frozenset[str]:
    """The names ``function`` binds for itself: its parameters, and for a ``def`` what its
    own statements bind, but names it declares global or nonlocal and names its own imports
    bind (those are resolved as the imports they are)."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    names = {a.arg for a in every}
    if isinstance(function, ast.Lambda):
        return frozenset(names)
    outside: set[str] = set()
    for node in _own_nodes(function):
        if isinstance(node, ast.Global | ast.Nonlocal):
            outside.update(node.names)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            outside.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return frozenset(names - outside)


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The nodes of ``function``'s body in its own scope (nested functions, classes,
    lambdas and comprehensions are other scopes: only a nested definition's name is its)."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef, *_COMPREHENSIONS)):
            continue
        pending.extend(children(node))


def _targets(targets: Iterable[ast.expr]) -> Iterator[str]:
    for target in targets:
        for node in walk(target):
            if isinstance(node, ast.Name):
                yield node.id
