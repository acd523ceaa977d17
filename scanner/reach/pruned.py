"""What a branch reaches under one value, leaving out the branches that value never takes.

A dispatch on a chosen backend (sglang's flash_mla_sm120.py:316-371: ``if be ==
"flashinfer": return fi(...)``, then ``if be == "triton": return tri(...)``, then the
PyTorch fall-through) has, for a value that is neither, a side that holds the rest of the
function: the ``"triton"`` test and the fall-through. What that side reaches under the
value is the fall-through only: the ``"triton"`` body is a branch of the same knob that the
value never runs. Its bodies are left out here, and what is left is followed as usual.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence

from scanner.reach.calls import Found, Reach
from scanner.reach.kept import kept_objects
from scanner.reach.sides import Branch


def never_taken(branches: Sequence[Branch], inside: Branch, value: str | None) -> frozenset[int]:
    """The ids of the ``if`` tests within ``inside``'s statements whose body is a branch of
    ``branches`` that never runs under ``value`` (for no choice of the rest of its test)."""
    if not isinstance(inside.code, tuple):
        return frozenset()
    tests = {
        id(node.test)
        for statement in inside.code
        for node in ast.walk(statement)
        if isinstance(node, ast.If)
    }
    found = set()
    for branch in branches:
        if branch is inside or branch.module is not inside.module or not branch.holds:
            continue
        if id(branch.test) not in tests:
            continue
        runs = branch.runs(value)
        if runs is not None and not any(runs):
            found.add(id(branch.test))
    return frozenset(found)


def reached_without(reach: Reach, branch: Branch, skipped: Collection[int]) -> Found:
    """What ``branch``'s statements reach with the bodies of the ``if`` tests ``skipped``
    names left out (their ``else`` runs in their place)."""
    assert isinstance(branch.code, tuple)
    code = _pruned(branch.code, skipped)
    found = reach.of_statements(branch.module, code, branch.owner)
    found.merge(kept_objects(reach, branch.module, code, branch.owner), None, always=False)
    for mark in branch.marks:
        found.add(mark, (), always=True)
    return found


def _pruned(statements: Sequence[ast.stmt], skipped: Collection[int]) -> tuple[ast.stmt, ...]:
    out: list[ast.stmt] = []
    for statement in statements:
        if isinstance(statement, ast.If) and id(statement.test) in skipped:
            out.extend(_pruned(statement.orelse, skipped))
        elif isinstance(statement, ast.If):
            copy = ast.If(
                test=statement.test,
                body=list(_pruned(statement.body, skipped)) or [ast.Pass()],
                orelse=list(_pruned(statement.orelse, skipped)),
            )
            out.append(ast.copy_location(copy, statement))
        else:
            out.append(statement)  # other blocks stay whole: they may reach more, never less
    return tuple(out)
