"""A test that picks which constant a function returns.

``return "tinygemm" if tinygemm else None`` (unsloth kernels/int4_packed.py:540), or ``if
requested == "unsloth_triton" and _check_grouped_gemm_available(): return
"unsloth_triton"`` followed by other constant returns (unsloth_zoo temporary_patches/
moe_utils.py:2120-2145): the value tested there leaves the function as one constant or
another, and the callers' tests of what it returns (``if layout is None: return None``,
``if backend == "unsloth_triton": ...``) decide with it.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from scanner.model import Outcome
from scanner.reach.modules import Module
from scanner.reach.shapes import named, own_returns
from scanner.reach.sides import names_around
from scanner.reach.truth import IsCarrier, atom_texts, truth_given
from scanner.source import ast_walk

_PLAIN = (str, bool, int, float, type(None))

Picked = tuple[tuple[Outcome, ...], tuple[Outcome, ...]]


def picked_constants(module: Module, test: ast.expr, carrier: ast.expr) -> Picked | None:
    """The constants the function may return where ``test`` holds, and where it does not:
    ``test`` is that of a ternary a ``return`` returns whole, or of an ``if`` whose body
    ends in the return of a constant other than True or False (``scanner.reach.uses``'s
    ``_early_return`` weighs those) and whose function returns constants alone after it,
    the local ``carrier`` is (if it is one) not being tested again there (``if mode ==
    "grouped": return "grouped"``: which of them it returns, the rest decides with the
    value); None otherwise."""
    outer = module.parent(test)
    if isinstance(outer, ast.IfExp) and outer.test is test:
        statement = module.parent(outer)
        if not isinstance(statement, ast.Return) or statement.value is not outer:
            return None
        held, other = _plain(outer.body), _plain(outer.orelse)
        if held is None or other is None or held == other:
            return None
        return held, other
    if not isinstance(outer, ast.If) or outer.test is not test or outer.orelse:
        return None
    last = outer.body[-1]
    held = _plain(last.value) if isinstance(last, ast.Return) and last.value else None
    if held is None or isinstance(held[0], bool):
        return None
    if any(module.leaves(s) for s in outer.body[:-1]):
        return None
    function = module.function_node_around(outer)
    if function is None:
        return None
    end = outer.end_lineno or outer.lineno
    if isinstance(carrier, ast.Name) and any(
        isinstance(n, ast.Name) and n.id == carrier.id and n.lineno > end
        for n in ast_walk.walk(function)
    ):
        return None
    others: list[Outcome] = []
    for statement in own_returns(function):
        if statement.lineno <= end:
            continue
        value = _plain(statement.value) if statement.value is not None else (None,)
        if value is None:
            return None  # a return the constants do not say
        others.extend(value)
    rest = tuple(dict.fromkeys(o for o in others if o != held[0]))
    if not rest:
        return None
    return held, rest


def _plain(node: ast.expr) -> tuple[Outcome] | None:
    """The constant ``node`` is, as a one-item tuple (None itself may be the constant)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, _PLAIN):
        value: Outcome = node.value
        return (value,)
    return None


MAX_JOINT = 4  # the conditions of the machine one walk of a function chooses together


def returned_by_value(
    module: Module,
    bound: ast.Assign | ast.AnnAssign,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> list[tuple[str | None, Outcome]] | None:
    """What the function returns under each outcome of the value ``bound`` stores in the
    local ``name``, where every return the walk from there reaches is a constant or the
    local itself, and every test on the way says, from the value and the rest of the tests,
    which side runs (unsloth_zoo temporary_patches/moe_utils.py:2120-2145 ``requested =
    os.environ.get(...)``, ``if requested == "native_torch": return "native_torch"``, then
    ``if _check_torch_grouped_mm_supported(): return "grouped_mm"``; axolotl
    sonicmoe/experts.py:176-191 ``if override: return override``; sglang
    hip_flash_mla.py:174-186, ``return "aiter_sparse" if is_gfx95_supported() else
    "tilelang"``). The rest of the tests (calls that ask the machine) is chosen together
    for the whole walk, the same call being the same choice in every test, and each value
    carries one outcome per choice, in the same order (``sides._alternatives``). None where
    the walk cannot say (a loop or ``try`` around a return, the local bound again, another
    return, too many conditions), or says nothing for the variable unset; a value under
    which the function may raise is left out."""
    function = module.function_node_around(bound)
    rest = _continuation(module, bound, function) if function is not None else None
    if rest is None or not any(isinstance(n, ast.Return) for s in rest for n in ast_walk.walk(s)):
        return None
    is_local = named(name)
    names = names_around(module, bound)
    texts: list[str] = []
    for test in _deciding_tests(module, rest):
        texts.extend(atom_texts(test, is_local, names))
    shapes = list(dict.fromkeys(texts))
    if len(shapes) > MAX_JOINT:
        return None
    choices = [
        dict(zip(shapes, chosen, strict=True))
        for chosen in itertools.product((False, True), repeat=len(shapes))
    ]
    carried: list[tuple[str | None, Outcome]] = []
    for value in dict.fromkeys(v for v, _ in outcomes):
        found: list[Outcome] = []
        for outcome in (o for v, o in outcomes if v == value):
            for chosen in choices:
                ran = _block(rest, _Walk(module, is_local, outcome, chosen, names))
                if ran is _FALLS:
                    ran = None  # off the end: None
                if not isinstance(ran, _PLAIN):  # not known, or it raises
                    found = []
                    break
                found.append(ran)
            if not found:
                break
        if not found and value is None:
            return None
        carried.extend((value, o) for o in found)
    return carried


def _continuation(
    module: Module, statement: ast.stmt, function: ast.FunctionDef | ast.AsyncFunctionDef
) -> list[ast.stmt] | None:
    """The statements that run after ``statement`` up to the end of ``function``, in order,
    where only ``if`` blocks lie between them (None where a loop, ``try`` or ``with`` does:
    what runs after it there is not a plain sequence)."""
    rest: list[ast.stmt] = []
    node: ast.stmt = statement
    while node is not function:
        rest.extend(module.after(node))
        outer = module.parent(node)
        if not isinstance(outer, ast.If | ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        node = outer
    return rest


def _deciding_tests(module: Module, statements: Sequence[ast.stmt]) -> Iterator[ast.expr]:
    """The tests of ``if`` statements around a return or a raise, and of returned ternaries."""
    for statement in statements:
        if isinstance(statement, ast.If) and module.leaves(statement):
            yield statement.test
            yield from _deciding_tests(module, statement.body)
            yield from _deciding_tests(module, statement.orelse)
        elif isinstance(statement, ast.Return):
            node = statement.value
            while isinstance(node, ast.IfExp):
                yield node.test
                node = node.orelse


_RAISES: Final = object()  # the walk ends in a raise


@dataclass(frozen=True)
class _Walk:
    """One walk's facts: the module, the local, the outcome it holds, the choice of the rest."""

    module: Module
    is_local: IsCarrier
    outcome: Outcome
    chosen: Mapping[str, bool]
    names: Mapping[str, object]

    def holds(self, test: ast.expr) -> bool | None:
        return truth_given(test, self.is_local, self.outcome, self.chosen, self.names)


_FALLS: Final = object()  # the block ran to its end
_UNKNOWN: Final = object()  # the walk cannot say


def _block(statements: Sequence[ast.stmt], walk: _Walk) -> object:
    """What a block returns, or ``_RAISES``, ``_FALLS`` (past its end), ``_UNKNOWN``."""
    for statement in statements:
        if isinstance(statement, ast.Return):
            return _returned(statement.value, walk)
        if isinstance(statement, ast.Raise):
            return _RAISES
        if isinstance(statement, ast.If) and walk.module.leaves(statement):
            holds = walk.holds(statement.test)
            if holds is None:
                return _UNKNOWN
            found = _block(statement.body if holds else statement.orelse, walk)
            if found is not _FALLS:
                return found
            continue
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if walk.module.leaves(statement) or _binds(statement, walk):
            return _UNKNOWN
    return _FALLS


def _returned(node: ast.expr | None, walk: _Walk) -> object:
    """The value a ``return`` of ``node`` gives: a constant, the local, or a ternary of those."""
    while isinstance(node, ast.IfExp):
        holds = walk.holds(node.test)
        if holds is None:
            return _UNKNOWN
        node = node.body if holds else node.orelse
    if node is None:
        return None
    if walk.is_local(node):
        return walk.outcome
    plain = _plain(node)
    return _UNKNOWN if plain is None else plain[0]


def _binds(statement: ast.stmt, walk: _Walk) -> bool:
    """Whether ``statement`` binds the local again."""
    return any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and walk.is_local(n)
        for n in ast_walk.walk(statement)
    )


_OTHER: Final = "\x00another name"  # a string no test of the function compares with


def returned_rest(
    module: Module,
    read: ast.expr,
    returned: Sequence[tuple[str | None, Outcome]],
    read_outcomes: Sequence[tuple[str | None, Outcome]],
) -> tuple[list[tuple[str | None, Outcome]], bool] | None:
    """For a read bound to a local (``backend = envs.X.get()``, sglang
    layers/attention/hip_flash_mla.py:174-186), where the probes saw the function return
    the value under some values only (the rest depends on the machine: ``"auto"`` is
    ``"aiter_sparse" if is_gfx95_supported() else "tilelang"``): what it returns under the
    others (``returned_by_value``), and whether it gives any string its tests do not name
    back unchanged (then a caller's test of the name, ``backend == "torch"``, is a test of
    the value itself, ``scanner.reach.sides.decided``'s ``choices``). None where the walk
    cannot say."""
    statement = module.parent(read)
    if not (
        isinstance(statement, ast.Assign)
        and statement.value is read
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return None
    name = statement.targets[0].id
    have = {v for v, _ in returned}
    missing = [(v, o) for v, o in read_outcomes if v not in have]
    rest = returned_by_value(module, statement, name, missing) if missing else []
    other = returned_by_value(module, statement, name, [(None, _OTHER)])
    if rest is None or other is None:
        return None
    return rest, bool(other) and all(o == _OTHER for _, o in other)
