"""What may run in a branch's place when it does not: the fallback a flag it sets chooses.

A branch that sets a name its function bound before it (``_pk_use = False`` ... ``if
enabled: ...; _pk_use = True``) tells the code after it that it ran; a later test of that
name (``if _pk_use: ... else: <the padded loop>``) runs, when the branch did not, the code
that does its work instead (unsloth 2026.10.9 models/rl_replacements.py:3837-3840, the
packed forward, and :4135-4141, the padded fallback). A kernel that fallback reaches too
is not one the value that skips the branch leaves: evidence for neither side.
"""

from __future__ import annotations

import ast

from scanner.reach.sides import Branch
from scanner.source.ast_walk import walk


def fallback_code(branch: Branch) -> tuple[ast.stmt, ...]:
    """The arms the later tests, in the branch's function, of names the branch binds take
    when those names keep the constants the function bound them to before it (``_pk_use =
    False``: the ``else`` of ``if _pk_use: ...``); empty where there are none. A test
    those constants do not decide adds nothing."""
    code = branch.code
    if not isinstance(code, tuple) or not code:
        return ()
    stored = {
        node.id
        for statement in code
        for node in branch.module.walked(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    if not stored:
        return ()
    line = branch.test.lineno
    scope = branch.module.function_node_around_line(line)
    if scope is None:
        return ()
    walked = branch.module.walked(scope)
    flags = _constants_before(walked, stored, line)
    if not flags:
        return ()
    end = max(s.end_lineno or s.lineno for s in code)
    found: list[ast.stmt] = []
    seen: set[int] = set()
    for node in walked:
        if (
            isinstance(node, ast.If)
            and node.lineno > end
            and id(node) not in seen
            and _reads(node.test, flags)
        ):
            seen.update(id(n) for n in walk(node) if isinstance(n, ast.If))
            taken = _taken(node, flags)
            found.extend(taken)
            found.extend(_loops_emptied(walked, node, taken))
    return tuple(found)


def _loops_emptied(
    walked: tuple[ast.AST, ...], node: ast.If, taken: list[ast.stmt]
) -> list[ast.stmt]:
    """The bodies of the loops after ``node`` over a name an arm the flags do not take
    binds to an empty list or tuple (``zipped_inputs = []``) and the arm they take leaves
    alone: the work the set flag skips, which the fallback runs (unsloth
    models/rl_replacements.py:4135-4145, then the padded loop over ``zipped_inputs``,
    :4147-4179)."""
    skipped = [s for s in walk(node) if isinstance(s, ast.stmt) and s not in taken]
    kept = {id(n) for s in taken for n in walk(s)}
    emptied = {
        target.id
        for statement in skipped
        if id(statement) not in kept and isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
        and isinstance(statement.value, ast.List | ast.Tuple)
        and not statement.value.elts
    }
    emptied -= {
        n.id
        for s in taken
        for n in walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    end = node.end_lineno or node.lineno
    return [
        statement
        for loop in walked
        if isinstance(loop, ast.For | ast.AsyncFor)
        and loop.lineno > end
        and isinstance(loop.iter, ast.Name)
        and loop.iter.id in emptied
        for statement in loop.body
    ]


def _constants_before(walked: tuple[ast.AST, ...], names: set[str], line: int) -> dict[str, object]:
    """Of ``names``, those the scope (``walked``: its nodes) last binds before ``line`` to a
    constant, with it."""
    bound: dict[str, tuple[int, object]] = {}
    for node in walked:
        if not isinstance(node, ast.Assign) or node.lineno >= line:
            continue
        for target in node.targets:
            if not isinstance(target, ast.Name) or target.id not in names:
                continue
            known = bound.get(target.id)
            if known is not None and known[0] > node.lineno:
                continue
            value = node.value.value if isinstance(node.value, ast.Constant) else _UNKNOWN
            bound[target.id] = (node.lineno, value)
    return {name: value for name, (_, value) in bound.items() if value is not _UNKNOWN}


_UNKNOWN = object()


def _reads(test: ast.expr, flags: dict[str, object]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in flags for n in walk(test))


def _taken(node: ast.If, flags: dict[str, object]) -> list[ast.stmt]:
    """The statements of the arm of ``node`` the flags' constants take (an ``elif`` on
    them decided in turn); none where they do not decide the test."""
    held = _holds(node.test, flags)
    if held is None:
        return []
    found: list[ast.stmt] = []
    for statement in node.body if held else node.orelse:
        if isinstance(statement, ast.If) and _reads(statement.test, flags):
            found.extend(_taken(statement, flags))
        else:
            found.append(statement)
    return found


def _holds(test: ast.expr, flags: dict[str, object]) -> bool | None:
    """Whether ``test`` holds with the flags' constants; None when they do not say."""
    if isinstance(test, ast.BoolOp):
        held = [_holds(v, flags) for v in test.values]
        decisive = isinstance(test.op, ast.Or)  # True decides an or, False an and
        if decisive in held:
            return decisive
        return None if None in held else not decisive
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _holds(test.operand, flags)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = _value(test.left, flags), _value(test.comparators[0], flags)
        if left is _UNKNOWN or right is _UNKNOWN:
            return None
        op = test.ops[0]
        if isinstance(op, ast.Eq | ast.Is):
            return left == right
        if isinstance(op, ast.NotEq | ast.IsNot):
            return left != right
        return None
    value = _value(test, flags)
    return None if value is _UNKNOWN else bool(value)


def _value(node: ast.expr, flags: dict[str, object]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in flags:
        return flags[node.id]
    return _UNKNOWN
