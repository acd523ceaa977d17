"""A branch's code as it runs under one value: the tests of the same value inside it decided.

``if be == "flashinfer": return fused(...)``, then ``if be == "triton": return tuned(...)``,
then ``return plain(...)``: the code after the first test runs for every other value, but
under ``"0"`` the second test fails, so ``"0"`` never reaches the Triton kernel. The
statements of a branch that are tests the knob's value decides (the branches the scan
found for them) are cut to the side the value takes, before the branch is followed.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from scanner.reach.sides import Branch, leaves


def decided_code(
    branch: Branch, others: Sequence[Branch], value: str | None
) -> tuple[ast.stmt, ...] | None:
    """``branch``'s statements with each ``if`` among them that one of ``others`` decides
    cut to the side ``value`` takes; None where no such ``if`` is there (the code as it is)."""
    code = branch.code
    if not isinstance(code, tuple):
        return None
    holds: dict[int, bool] = {}
    for other in others:
        if other is branch or other.module is not branch.module or not _compares(other.test):
            continue
        parent = other.module.parent(other.test)
        if not isinstance(parent, ast.If):
            continue
        runs = other.runs(value)
        if runs is None or len(set(runs)) != 1:
            continue  # what it does depends on the rest of its test
        holds[id(parent)] = runs[0] if other.holds else not runs[0]
    if not holds:
        return None
    cut = cut_code(code, holds)
    return None if cut == code else cut


def cut_code(statements: Sequence[ast.stmt], holds: Mapping[int, bool]) -> tuple[ast.stmt, ...]:
    """``statements`` with each ``if`` of ``holds`` (by id: whether its test holds) cut to
    the side taken, and what follows a side that leaves dropped."""
    out: list[ast.stmt] = []
    for statement in statements:
        decided = holds.get(id(statement))
        if decided is None or not isinstance(statement, ast.If):
            out.append(statement)
            continue
        taken = cut_code(statement.body if decided else statement.orelse, holds)
        out.extend(taken)
        if leaves(taken):
            break  # the side taken leaves: what follows it does not run
    return tuple(out)


def enclosing(branches: Sequence[Branch]) -> dict[int, list[Branch]]:
    """For each branch (by id), the branches among ``branches`` whose statements hold its
    test (``elif mode == "on":`` sits in the ``else`` of ``if mode == "off":``)."""
    inside: dict[int, list[Branch]] = {}
    for outer in branches:
        code = outer.code
        if not isinstance(code, tuple):
            continue
        held = {id(node) for statement in code for node in outer.module.walked(statement)}
        for branch in branches:
            if branch is not outer and branch.module is outer.module and id(branch.test) in held:
                inside.setdefault(id(branch), []).append(outer)
    return inside


def runs_within(
    branch: Branch, outers: Sequence[Branch], value: str | None
) -> tuple[bool, ...] | None:
    """``branch.runs(value)``, none of it where a branch that holds it, behind a comparison,
    never runs under ``value``."""
    runs = branch.runs(value)
    if runs is None:
        return None
    for outer in outers:
        if not _compares(outer.test):
            continue  # a bare name may hold more than the value (`used = on and not extend`)
        around = outer.runs(value)
        if around is not None and not any(around):
            return tuple(False for _ in runs)
    return runs


def _compares(test: ast.expr) -> bool:
    """Whether ``test`` compares (``mode == "off"``, ``not x in (...)``): a test whose truth
    the value alone decides, as the probes saw it; or joins comparisons with ``and`` or
    ``or`` beside other conditions, none a bare name (``mode != Mode.OFF and
    x.is_contiguous()``: the probes weigh every choice of the rest)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.BoolOp):
        return any(_compares(v) for v in test.values) and not any(
            isinstance(_operand(v), ast.Name | ast.BoolOp) and not _compares(v) for v in test.values
        )
    return isinstance(test, ast.Compare)


def _operand(test: ast.expr) -> ast.expr:
    return test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
