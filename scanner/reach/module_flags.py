"""Module-level flags one side of a module-level gate sets, for the module's code to test.

``CUSTOM_KERNELS_ENABLED = False``, then ``if torch.cuda.is_available() and not
os.environ.get("DISABLE_CUSTOM_KERNELS", "False") == "True":`` whose body imports the
extension and sets ``CUSTOM_KERNELS_ENABLED = True`` inside a ``try`` (huggingface/
text-generation-inference db931fc, server/text_generation_server/models/custom_modeling/
bloom_modeling.py:42-52), tested in a method further on (:380 ``if CUSTOM_KERNELS_ENABLED
and ...``): the flag carries the decision, true where that side runs and the rest of its
``try`` does not fail, and what it held before the ``if`` where the other side runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from scanner.source.ast_walk import walk


def module_flags_set(
    module_body: Sequence[ast.stmt], statement: ast.If
) -> Iterator[tuple[ast.Assign, bool, bool]]:
    """For a module-level ``statement``: each assignment of True or False to a name that
    one side's own statements (or the body of a ``try`` among them) make, with the value
    and the side (True: the body), where the module binds the name to the other constant
    before the ``if`` and the other side does not bind it."""
    before = _constants_before(module_body, statement)
    sides = ((statement.body, True), (statement.orelse, False))
    for side, holds in sides:
        other = statement.orelse if holds else statement.body
        for assignment, name, value in _constant_assignments(side):
            if before.get(name) is (not value) and not _binds(other, name):
                yield assignment, value, holds


def _constant_assignments(block: Sequence[ast.stmt]) -> Iterator[tuple[ast.Assign, str, bool]]:
    for statement in block:
        if isinstance(statement, ast.Try):
            yield from _constant_assignments(statement.body)
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, bool)
        ):
            yield statement, target.id, statement.value.value


def _constants_before(module_body: Sequence[ast.stmt], statement: ast.If) -> dict[str, bool]:
    """The module-level names bound to True or False by the module's own statements before
    ``statement`` (the last binding of each)."""
    found: dict[str, bool] = {}
    for node in module_body:
        if node is statement:
            break
        for _, name, value in _constant_assignments([node]):
            found[name] = value
    return found


def _binds(block: Sequence[ast.stmt], name: str) -> bool:
    return any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
        for statement in block
        for node in walk(statement)
    )
