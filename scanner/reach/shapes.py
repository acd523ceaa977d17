"""Small shapes a carried value is followed through: constants set, returns, binds."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence

from scanner.reach.truth import IsCarrier
from scanner.source.ast_walk import children, walk


def called(call: ast.Call) -> ast.expr:
    """What ``call`` calls: its function, or the kernel a Triton launch ``kernel[grid](...)``
    runs."""
    return call.func.value if isinstance(call.func, ast.Subscript) else call.func


def own_returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The returns of ``function`` itself (nested functions and classes left out)."""
    found: list[ast.Return] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(children(node))
    return found


def parameter_defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """The default of each parameter of ``function`` that has one."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = dict(
        zip(
            (a.arg for a in positional[len(positional) - len(arguments.defaults) :]),
            arguments.defaults,
            strict=True,
        )
    )
    found.update(
        (a.arg, d)
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if d is not None
    )
    return found


def named(name: str) -> IsCarrier:
    """The test for a load of the local ``name``."""
    return lambda node: isinstance(node, ast.Name) and node.id == name


def locals_set(
    body: Sequence[ast.stmt], holds: Callable[[ast.expr], bool]
) -> Iterator[tuple[str, ast.expr]]:
    """The locals a block's own statements set (``x = value``, one name) to a value that
    ``holds``, each with that value, in the order of the statements."""
    for statement in body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and holds(statement.value)
        ):
            yield target.id, statement.value


def constants_set(body: Sequence[ast.stmt]) -> dict[str, bool]:
    """The locals a block's own statements set to True or False."""
    return {name: constant(value) is True for name, value in locals_set(body, _is_bool)}


def _is_bool(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, bool)


def constant(node: ast.expr | None) -> object:
    """The constant returned: ``False``, or the first item of ``return False, "why"``."""
    if isinstance(node, ast.Tuple) and node.elts:
        node = node.elts[0]
    return node.value if isinstance(node, ast.Constant) else None


def assigns(statement: ast.Assign | ast.AnnAssign, value: ast.expr) -> bool:
    """Whether ``statement`` binds ``value`` to one target (``x = v``, ``x: T = v``)."""
    if isinstance(statement, ast.Assign):
        return statement.value is value and len(statement.targets) == 1
    return isinstance(statement, ast.AnnAssign) and statement.value is value


_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def returns_naming(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> Iterator[ast.Name]:
    """The loads of the local ``name`` in what ``function`` returns (``return x and ok()``),
    nested functions left out."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            yield from (n for n in walk(node.value) if isinstance(n, ast.Name) and n.id == name)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(c for c in children(node) if isinstance(c, _BLOCKS))
