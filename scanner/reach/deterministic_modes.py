"""A carried value handed on under a keyword to a function of the tree that chooses an
atomic reduction by that parameter (followed through calls that hand it on under the same
keyword, and through a parameter whose default is the function called).

Under a keyword of the deterministic family (``deterministic_output=``, where
``scanner.reach.keyword_branches`` takes ``deterministic=``), the value is a deterministic mode
where the atomic is on the parameter's false side (``ROUTE_BUFFER_TOPK_SUM if
deterministic_output else ATOMIC_SCATTER``). Under any other keyword, the side of the value
that takes the atomic reaches atomics (aiter ops/flydsl: ``accumulate=`` handed to the
stage-2 MoE GEMM builder, whose kernel adds each slot with ``rocdl.raw_ptr_buffer_atomic_fadd``
where ``accumulate`` holds and stores it where not); only where the other side does work in
its place (a side that only skips the atomic leaves its result unwritten).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from scanner.model import Outcome
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module, Tree
from scanner.reach.shapes import called, parameter_defaults
from scanner.reach.sides import Branch, alternatives
from scanner.source.ast_walk import walk

FAMILY = "deterministic_"  # the keyword's prefix: deterministic_output=, deterministic_reduce=
MAX_HOPS = 3  # functions followed from the call the value is handed to

Function = ast.FunctionDef | ast.AsyncFunctionDef


def family(key: object) -> bool:
    """Whether ``key`` is a keyword of the deterministic family other than ``deterministic``
    itself (which ``keyword_branches.handed_as_flag`` reads)."""
    return isinstance(key, str) and key.startswith(FAMILY) and len(key) > len(FAMILY)


def handed_mode(
    module: Module,
    outer: ast.AST,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
) -> Branch | None:
    """The carried value handed on as a keyword to a function of the tree that takes an
    atomic reduction by it: a branch with no code of its own that reaches a deterministic
    mode where a ``deterministic_X=`` value is true, or atomics where any other keyword's
    value takes the atomic's side."""
    if not isinstance(outer, ast.keyword) or outer.arg is None:
        return None
    call = module.parent(outer)
    if not isinstance(call, ast.Call) or outer.value is not carrier:
        return None
    mode = family(outer.arg)
    if not mode and isinstance(call.func, ast.Subscript):
        return None  # a Triton launch: its kernel's tests of the parameter are followed
    atomic = atomic_choice(tree, module, call, outer.arg, mode=mode)
    if atomic is None:
        return None
    side, what, rel, line = atomic
    callee = module.resolve(called(call), module.owner_class(call)) or ""
    callee = callee or _default_called(module, call) or ""
    shown = f"{outer.arg}= to {callee.rsplit('.', 1)[-1]} at {module.rel}:{outer.lineno}"
    if mode:
        mark = Mark(
            MarkKind.DETERMINISM,
            f"{shown}, which takes {what} at {rel}:{line} where it is false",
            module.rel,
            outer.lineno,
        )
        side = True  # the branch is the mode: it runs where the value is true
    else:
        held = "true" if side else "false"
        mark = Mark(MarkKind.ATOMIC, f"{what} ({shown}, where it is {held})", rel, line)
    rows: dict[str | None, list[tuple[bool, ...]]] = {}
    for value, outcome in outcomes:
        rows.setdefault(value, []).append((bool(outcome) is side,))
    taken = alternatives(rows)
    # leaving the atomic's side, the function runs its other side in its place
    return Branch(
        module,
        (),
        module.owner_class(carrier),
        taken,
        carrier,
        True,
        replaces=not mode,
        marks=(mark,),
    )


def modes_handed(
    module: Module,
    function: Function,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    after: int,
) -> Iterator[Branch]:
    """The local ``name`` of ``function`` (after line ``after``) handed on as a keyword
    (``handed_mode``), wherever the call's result goes."""
    for call, key in module.arguments_passing(function).get(name, ()):
        if call.lineno <= after or key is None:
            continue
        for keyword in call.keywords:
            if keyword.arg == key and isinstance(keyword.value, ast.Name):
                branch = handed_mode(module, keyword, keyword.value, outcomes, tree)
                if branch is not None:
                    yield branch


def atomic_choice(
    tree: Tree,
    module: Module,
    call: ast.Call,
    key: str,
    hops: int = 0,
    *,
    mode: bool = True,
) -> tuple[bool, str, str, int] | None:
    """Where the parameter ``key`` of the function ``call`` calls chooses an atomic
    reduction by a test of it (followed through calls that hand the parameter on under the
    same keyword): the side of the key that takes it, the atomic's name, its module and
    line; None where none is found. ``mode``: a deterministic family's keyword, whose false
    side is read for any name of an atomic (``ATOMIC_SCATTER``); otherwise either side, for
    an atomic operation called there and none on the other side."""
    found = _callee(tree, module, call)
    if found is None:
        return None
    callee, function = found
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    if key not in names:
        return None
    for node in walk(function):
        if isinstance(node, ast.IfExp | ast.If):
            polarity = _tests(callee, node.test, key)
            if polarity is None:
                continue
            held, other = (node.body, node.orelse) if polarity else (node.orelse, node.body)
            on_true = _atomic_named(held if isinstance(held, list) else [held], calls=not mode)
            on_false = _atomic_named(other if isinstance(other, list) else [other], calls=not mode)
            if mode and on_false is not None:
                return False, on_false[0], callee.rel, on_false[1]
            if not mode and (on_true is None) != (on_false is None):
                atomic = on_true or on_false
                assert atomic is not None
                instead = other if on_true is not None else held
                if _does_work(instead if isinstance(instead, list) else [instead]):
                    return on_true is not None, atomic[0], callee.rel, atomic[1]
        elif isinstance(node, ast.Call) and hops < MAX_HOPS:
            handed = next((k for k in node.keywords if k.arg == key), None)
            if handed is not None and _names(handed.value, key):
                further = atomic_choice(tree, callee, node, key, hops + 1, mode=mode)
                if further is not None:
                    return further
    return None


def _tests(module: Module, test: ast.expr, key: str) -> bool | None:
    """True where ``test`` is ``key`` (its body runs when the key holds), False where it is
    ``not key``, None otherwise; through ``bool(key)`` and a kernel language's compile-time
    ``const_expr(key)`` (flydsl.expr, cutlass), which are the key's own truth."""
    if isinstance(test, ast.Name) and test.id == key:
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _tests(module, test.operand, key)
        return None if inner is None else not inner
    if isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords:
        function = module.resolve(test.func) or ""
        if function.endswith(".const_expr") or (
            isinstance(test.func, ast.Name) and test.func.id == "bool"
        ):
            return _tests(module, test.args[0], key)
    return None


def _does_work(side: Sequence[ast.AST]) -> bool:
    """Whether the side without the atomic does work of its own in its place (a store of
    the same result), not nothing (``if STORE_DPOOL: tl.atomic_add(...)`` alone, Primus
    v4_csa_attention_bwd.py:284-288: the other value leaves the gradient unwritten)."""
    return any(not isinstance(n, ast.Pass) for n in side)


def _names(value: ast.expr, key: str) -> bool:
    """``key`` itself, or ``bool(key)``."""
    if isinstance(value, ast.Name):
        return value.id == key
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "bool"
        and len(value.args) == 1
        and not value.keywords
        and _names(value.args[0], key)
    )


def _atomic_named(nodes: Sequence[ast.AST], *, calls: bool) -> tuple[str, int] | None:
    """The first name or attribute in ``nodes`` that names an atomic operation
    (``OutputReduction.ATOMIC_SCATTER``, ``atomic_add``), with its line; ``calls``: only
    a function called (``rocdl.raw_ptr_buffer_atomic_fadd(...)``, ``llvm.AtomicRMWOp(...)``),
    not a name that only holds a choice."""
    for top in nodes:
        for node in walk(top):
            if calls:
                node = node.func if isinstance(node, ast.Call) else ast.Pass()
            last = (
                node.attr
                if isinstance(node, ast.Attribute)
                else node.id
                if isinstance(node, ast.Name)
                else None
            )
            if last is not None and any(t.startswith("atomic") for t in last.lower().split("_")):
                return ast.unparse(node), getattr(node, "lineno", 0)
    return None


def _callee(tree: Tree, module: Module, call: ast.Call) -> tuple[Module, Function] | None:
    """The module-level function of the tree ``call`` calls, also where the import names a
    package the tree holds under a longer name (``import b12x.moe.x`` for ``pkg/b12x/moe/x.py``)."""
    dotted = module.resolve(called(call), module.owner_class(call)) or _default_called(module, call)
    if dotted is None:
        return None
    package, _, name = dotted.rpartition(".")
    split = tree.split(dotted)
    if split is not None and split[1] == name:
        found = _defined(split[0], name)
        if found is not None:
            return found
    if not package:
        return None
    for rel in sorted(tree.rels()):
        full = tree.module_name_at(rel)
        if full is not None and full.endswith(f".{package}"):
            candidate = tree.module(rel)
            found = _defined(candidate, name) if candidate is not None else None
            if found is not None:
                return found
    return None


def _default_called(module: Module, call: ast.Call) -> str | None:
    """What a call of a parameter calls where its caller leaves it to its default, a
    function of the module (``def stage2(..., _compile_kernel=compile_stage2)``, then
    ``_compile_kernel(...)``: aiter ops/flydsl/moe_kernels.py:2013, :2229)."""
    function = module.function_node_around(call)
    if function is None or not isinstance(call.func, ast.Name):
        return None
    name = call.func.id
    default = parameter_defaults(function).get(name)
    if not isinstance(default, ast.Name | ast.Attribute) or name in module.local_bindings(function):
        return None  # no function by default, or bound again in the function
    return module.resolve(default, module.owner_class(call))


def _defined(module: Module, name: str) -> tuple[Module, Function] | None:
    """The module-level function ``name`` of ``module``."""
    for statement in module.tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and (
            statement.name == name
        ):
            return module, statement
    return None
