"""A carried value that picks torch.compile's mode: an autotuning mode against the default.

``mode = "max-autotune-no-cudagraphs" if X else None`` then ``CompileConfig(mode=mode)`` or
``torch.compile(fn, mode=mode)``: where the tuning mode is picked, Inductor benchmarks its
kernel choices at compile time and keeps the fastest (the mode turns on Inductor's
``max_autotune``, torch/_inductor/config.py:514 of torch 2.13.0); the default mode (None,
``"default"``) turns on no option, and Inductor takes its default heuristics.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from scanner.reach.inductor import TUNING_OPTIONS
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.reach.shapes import called
from scanner.reach.sides import Branch
from scanner.source.ast_walk import walk

# torch.compile's modes and the Inductor options each turns on (torch 2.13.0,
# torch/_inductor/__init__.py:354-372, ``list_mode_options``; the modes are documented in
# torch.compile's docstring, torch/__init__.py:2666-2682).
MODE_OPTIONS: Final = {
    "default": frozenset[str](),
    "reduce-overhead": frozenset({"triton.cudagraphs"}),
    "max-autotune-no-cudagraphs": frozenset({"max_autotune", "coordinate_descent_tuning"}),
    "max-autotune": frozenset({"max_autotune", "triton.cudagraphs", "coordinate_descent_tuning"}),
}
# The modes that benchmark kernel choices, and the modes that tune nothing (None: no mode
# given, torch.compile's "default").
TUNING_MODES: Final = frozenset(
    m for m, options in MODE_OPTIONS.items() if options & TUNING_OPTIONS
)
PLAIN_MODES: Final = frozenset({None, *(m for m, options in MODE_OPTIONS.items() if not options)})
_SOURCE = "torch/_inductor/__init__.py:362"  # where the tuning modes' options are listed


def tuned_mode(module: Module, choice: ast.IfExp, branches: Sequence[Branch]) -> list[Branch]:
    """The sides of ``choice`` (a ternary the carried value tests) where it picks between a
    tuning mode and a plain one, and its value is handed on as ``mode=``: the tuning side
    marked as autotuning, in place of the constant it picks; empty for any other ternary."""
    sides = (choice.body, choice.orelse)
    if not all(isinstance(side, ast.Constant) for side in sides):
        return []
    picked = [side.value for side in sides if isinstance(side, ast.Constant)]
    tuning = [at for at, value in enumerate(picked) if value in TUNING_MODES]
    if len(tuning) != 1 or picked[1 - tuning[0]] not in PLAIN_MODES:
        return []
    handed = _handed_as_mode(module, choice)
    if handed is None:
        return []
    call, keyword = handed
    callee = ast.unparse(called(call))
    mark = Mark(
        MarkKind.AUTOTUNE,
        f"torch.compile's autotuning mode {picked[tuning[0]]!r} (it turns on Inductor's "
        f"max_autotune, {_SOURCE}), handed as mode= to {callee}",
        module.rel,
        keyword.lineno,
    )
    tuned = sides[tuning[0]]
    return [
        replace(branch, code=(), replaces=True, marks=(mark,))
        for branch in branches
        if branch.code is tuned
    ]


def _handed_as_mode(module: Module, choice: ast.IfExp) -> tuple[ast.Call, ast.keyword] | None:
    """The call ``choice``'s value is handed to as ``mode=``: directly, or through the one
    local of its function it is bound to."""
    parent = module.parent(choice)
    if isinstance(parent, ast.keyword):
        return _as_mode(module, parent)
    function = module.function_node_around(choice)
    if (
        function is None
        or not isinstance(parent, ast.Assign)
        or len(parent.targets) != 1
        or not isinstance(name := parent.targets[0], ast.Name)
    ):
        return None
    for node in walk(function):
        if (
            isinstance(node, ast.keyword)
            and isinstance(node.value, ast.Name)
            and node.value.id == name.id
            and node.lineno > parent.lineno
        ):
            return _as_mode(module, node)
    return None


def _as_mode(module: Module, keyword: ast.keyword) -> tuple[ast.Call, ast.keyword] | None:
    call = module.parent(keyword)
    if keyword.arg != "mode" or not isinstance(call, ast.Call):
        return None
    return call, keyword
