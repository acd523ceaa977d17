"""A carried value handed to TorchInductor as one of its autotuning options.

``config["max_autotune"] = envs.X`` where ``config`` is handed to Inductor as its
``config_patches`` (``compile_fx(..., config_patches=config)``, ``standalone_compile(...,
options={"config_patches": config})``), or ``torch._inductor.config.max_autotune = X``:
where the value is true, Inductor benchmarks its kernel choices and keeps the fastest
(torch/_inductor/config.py: ``max_autotune``, ``coordinate_descent_tuning``); false,
it takes its default heuristics instead.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Final

from scanner.model import Outcome
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.source.ast_walk import walk

# Inductor's options that choose kernels by benchmarking them at compile time
# (pytorch/pytorch torch/_inductor/config.py, 2.6 to 2.10).
TUNING_OPTIONS: Final = frozenset(
    {
        "max_autotune",
        "max_autotune_gemm",
        "max_autotune_pointwise",
        "coordinate_descent_tuning",
    }
)
_INDUCTOR_CONFIG = "torch._inductor.config."
_HANDED_AS = frozenset({"config_patches", "options"})


def inductor_option(module: Module, statement: ast.Assign) -> Mark | None:
    """The mark of an assignment that sets an Inductor autotuning option to its value, where
    the code shows the option reaches Inductor; None otherwise."""
    if len(statement.targets) != 1:
        return None
    target = statement.targets[0]
    if isinstance(target, ast.Attribute):
        name = module.resolve(target)
        if name is not None and name.startswith(_INDUCTOR_CONFIG):
            option = name[len(_INDUCTOR_CONFIG) :]
            if option in TUNING_OPTIONS:
                return Mark(MarkKind.AUTOTUNE, f"{name} (Inductor)", module.rel, statement.lineno)
        return None
    if not (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and isinstance(target.slice, ast.Constant)
        and target.slice.value in TUNING_OPTIONS
    ):
        return None
    handed = _reaches_inductor(module, target.value.id, statement)
    if handed is None:
        return None
    return Mark(
        MarkKind.AUTOTUNE,
        f"Inductor's {target.slice.value} option (handed on {handed})",
        module.rel,
        statement.lineno,
    )


def _reaches_inductor(module: Module, name: str, statement: ast.stmt) -> str | None:
    """Where the dict the local ``name`` holds is handed to Inductor: in its function, or,
    for a parameter, in a function of the module that calls it with a local of its own."""
    function = module.function_node_around(statement)
    if function is None:
        return None
    found = _handed(module, function, name)
    if found is not None:
        return found
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if name not in parameters:
        return None
    position = parameters.index(name)
    for call in module.calls_named(function.name):
        if module.resolve(call.func) != module.qualified(function.name):
            continue
        argument = call.args[position] if position < len(call.args) else None
        caller = module.function_node_around(call)
        if isinstance(argument, ast.Name) and caller is not None:
            found = _handed(module, caller, argument.id)
            if found is not None:
                return found
    return None


def _handed(
    module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> str | None:
    """``f(..., config_patches=name)`` with ``f`` of ``torch._inductor`` (or torch.compile's
    ``options=``), or ``{"config_patches": name}`` in a function that calls Inductor."""
    calls = [n for n in walk(function) if isinstance(n, ast.Call)]
    inductor = [c for c in calls if _is_inductor(module, c)]
    for call in inductor:
        for keyword in call.keywords:
            if keyword.arg in _HANDED_AS and _names(keyword.value, name):
                return f"as {keyword.arg}= at {module.rel}:{call.lineno}"
    if not inductor:
        return None
    for node in walk(function):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "config_patches"
                    and _names(value, name)
                ):
                    return (
                        f"as config_patches at {module.rel}:{node.lineno}, to Inductor at "
                        f"{module.rel}:{inductor[0].lineno}"
                    )
    return None


def _is_inductor(module: Module, call: ast.Call) -> bool:
    name = module.resolve(call.func)
    return name is not None and (name.startswith("torch._inductor.") or name == "torch.compile")


def _names(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def option_taken(
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> dict[str | None, tuple[bool, ...]]:
    """Per probed value, whether the option is on."""
    seen = [value for value, _ in outcomes]
    return {
        value: (bool(outcome),)
        for value, outcome in outcomes
        if outcome is not None and seen.count(value) == 1
    }
