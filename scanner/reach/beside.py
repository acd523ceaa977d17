"""What a branch reaches besides its own calls: what it keeps for later, and its closures.

- A function a branch imports into a name that is None elsewhere (``_flex = None`` and,
  under the test, ``from .kernel import flex_attention as _flex``; unsloth 2026.10.9
  utils/attention_dispatch.py:998-1005) is kept for the code that tests the name later
  (``if flex is None:``, :1269-1270): what the function reaches, the branch reaches on some
  paths (as ``scanner.reach.kept`` says of an object a branch makes and keeps). A name the
  code calls without such a test (sglang srt/layers/moe/moe_runner/flashinfer_trtllm.py:152-155,
  called at :1386) is an import the code needs where the test holds, not a choice.
- A function defined in the branch's function and called by the branch by its name
  (``_pg_result = _pg_run_forward()``, the closure defined at models/rl_replacements.py:3765,
  called at :3805) runs there: what its body reaches, the branch reaches.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from scanner.reach.calls import Found, Reach, Step
from scanner.reach.kept import kept_objects
from scanner.reach.modules import Module
from scanner.source.ast_walk import walk
from scanner.syntax.namespace import resolve_relative

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def beside(reach: Reach, module: Module, code: Sequence[ast.stmt], owner: str | None) -> Found:
    """What ``code`` reaches (on some paths) through the objects and functions it keeps
    and the closures it calls."""
    found = kept_objects(reach, module, code, owner)
    found.merge(_kept_imports(reach, module, code), None, always=False)
    found.merge(_closures(reach, module, code, owner), None, always=False)
    return found


def _kept_imports(reach: Reach, module: Module, code: Sequence[ast.stmt]) -> Found:
    found = Found()
    package = module.rel.endswith("__init__.py")
    for statement in _statements(code):
        if not isinstance(statement, ast.ImportFrom):
            continue
        base = resolve_relative(module.name, package, statement.level, statement.module or "")
        for alias in statement.names:
            local = alias.asname or alias.name
            if alias.name == "*" or not _none_elsewhere(module, statement, local):
                continue
            if not _tested(module, local):
                continue  # called where it may be None: an import the code needs, not a choice
            reached = reach.function(f"{base}.{alias.name}" if base else alias.name, 0)
            if reached is None or not reached[0].marks:
                continue
            step = Step(
                f"imports {alias.name}, kept in {local} (None otherwise)",
                module.rel,
                statement.lineno,
            )
            found.merge(reached[0], step, always=False)
    return found


def _closures(reach: Reach, module: Module, code: Sequence[ast.stmt], owner: str | None) -> Found:
    found = Found()
    if not code:
        return found
    scope = module.function_node_around(code[0])
    if scope is None:
        return found
    defined = {
        node.name: node
        for node in module.walked(scope)
        if isinstance(node, _FUNCTIONS) and node is not scope
    }
    if not defined:
        return found
    called = {
        node.func.id
        for statement in code
        for node in walk(statement)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    for name in sorted(called & defined.keys()):
        closure = defined[name]
        step = Step(f"calls {name}", module.rel, closure.lineno)
        found.merge(reach.of_statements(module, closure.body, owner, 1), step, always=False)
    return found


def _statements(code: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """``code``'s statements and those nested in its blocks, not in its definitions."""
    for statement in code:
        yield statement
        if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list):
                yield from _statements([s for s in inner if isinstance(s, ast.stmt)])
        for handler in getattr(statement, "handlers", ()):
            yield from _statements(handler.body)


def _none_elsewhere(module: Module, statement: ast.stmt, name: str) -> bool:
    """Whether ``name`` is bound to None elsewhere in the scope ``statement`` sits in (its
    function, or the module)."""
    scope: ast.AST = module.function_node_around(statement) or module.tree
    return any(
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and node.value.value is None
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        for node in walk(scope)
    )


def _tested(module: Module, name: str) -> bool:
    """Whether the module tests ``name``, or a name bound to it, against None or for truth
    (``x is None``, ``if x:``, ``if not x:``)."""
    names = {name}
    for node in walk(module.tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in walk(module.tree):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Name)
            and node.left.id in names
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.Is | ast.IsNot)
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value is None
        ):
            return True
        if isinstance(node, ast.If | ast.IfExp | ast.While):
            test = node.test
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand
            if isinstance(test, ast.Name) and test.id in names:
                return True
    return False
