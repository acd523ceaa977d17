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


def fallback_code(branch: Branch) -> tuple[ast.stmt, ...]:
    """The arms of the later tests, in the branch's function, of a name the branch binds
    and the function bound before it; empty where there are none."""
    code = branch.code
    if not isinstance(code, tuple) or not code:
        return ()
    stored = {
        node.id
        for statement in code
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    if not stored:
        return ()
    line = branch.test.lineno
    scope = branch.module.function_node_around_line(line)
    if scope is None:
        return ()
    flags = {
        node.id
        for node in ast.walk(scope)
        if isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Store)
        and node.id in stored
        and node.lineno < line
    }
    if not flags:
        return ()
    end = max(s.end_lineno or s.lineno for s in code)
    found: list[ast.stmt] = []
    taken: set[int] = set()
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.If)
            and node.lineno > end
            and id(node) not in taken
            and any(isinstance(n, ast.Name) and n.id in flags for n in ast.walk(node.test))
        ):
            found.extend((*node.body, *node.orelse))
            taken.update(id(n) for n in ast.walk(node) if isinstance(n, ast.If))
    return tuple(found)
