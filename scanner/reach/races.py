"""Candidates timed against one another, the fastest kept: an autotuner written by hand.

A function times what it runs (scanner.reach.timed_values) and lets the times pick what
runs: ``min(plans, key=timings.get)``, an ``argmin``, candidates whose time trails the
leader's dropped (``[i for i in active if best[i] <= margin * leader]``: flashinfer 0.7.2
experimental/b12x/preparation/_measurement.py:399-411), ``(time, config)`` pairs ordered, or
a comparison of two times that keeps something else (``if t < best_t: best_t, best = t,
config``). What runs then depends on the machine's timings. A time only reported, logged,
averaged or returned is no race (Primus core/projection/performance_projection/projection.py:
3095-3125: a median kept for a report); nor is a time against a limit (a timeout), nor a
comparison that keeps a time or a clock reading (vllm distributed/kv_transfer/kv_connector/
v1/nixl/base_worker.py:1162-1173: the offset of the fastest round trip).

The times a function of the tree returns are followed two calls deep, into the functions
it calls by name, its ``self.`` methods, and the method of an object it cannot type
(``timer.samples()``) that one class of its module alone defines.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.reach.shapes import own_returns
from scanner.reach.timed_values import (
    ARG_PICKS,
    PICKS,
    TIME_WORDS,
    Function,
    Times,
    is_pick,
    keys_of,
)
from scanner.source.ast_walk import walk

# The tree's function a dotted name calls (through re-exports), with its module, or None.
Locate = Callable[[str], tuple[Module, Function] | None]
MAX_DEPTH = 2  # calls whose returned times are followed
_REPORTS = frozenset(
    {"print", "debug", "info", "warning", "warn", "error", "critical", "log", "write"}
)
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


@dataclass(frozen=True, slots=True)
class Race:
    """Where a function's times pick a candidate, shown as a mark."""

    mark: Mark
    node: ast.AST  # the pick


class Races:
    """The races of the tree's functions, each read once; one per scan."""

    def __init__(self, locate: Locate) -> None:
        self._locate = locate
        self._races: dict[int, tuple[Function, tuple[Race, ...]]] = {}
        self._returns: dict[tuple[int, int], tuple[Function, str | None]] = {}
        self._texts: dict[int, tuple[Module, bool]] = {}
        # The one method of that name a class of the module defines, by module and name.
        self._methods: dict[tuple[int, str], tuple[Module, Function | None]] = {}

    def of(self, module: Module, function: Function) -> tuple[Race, ...]:
        """The races ``function`` runs itself (not those of the functions it calls)."""
        known = self._races.get(id(function))
        if known is not None and known[0] is function:
            return known[1]
        found: tuple[Race, ...] = ()
        if _may_pick(module, function):
            times = self._times(module, function, 0)
            if times.reads:
                found = tuple(_races(times))
        self._races[id(function)] = (function, found)
        return found

    def within(self, module: Module, statements: Iterable[ast.stmt]) -> tuple[Race, ...]:
        """The races of the function around ``statements`` that they hold."""
        statements = tuple(statements)
        function = module.function_node_around(statements[0]) if statements else None
        races = self.of(module, function) if function is not None else ()
        if not races:
            return ()
        held = {id(n) for s in statements for n in module.walked(s)}
        return tuple(r for r in races if id(r.node) in held)

    def _times(self, module: Module, function: Function, depth: int) -> Times:
        owner = module.owner_class(function)

        def returns_time(call: ast.Call) -> str | None:
            if depth >= MAX_DEPTH:
                return None
            located = self._callee(module, call, owner)
            if located is None or located[1] is function:
                return None
            inner = self._returned(located[0], located[1], depth + 1)
            if inner is None:
                return None
            return (
                f"{ast.unparse(call.func)}() at {module.rel}:{call.lineno}, which returns {inner}"
            )

        return Times(module, function, _remembered(returns_time))

    def _returned(self, module: Module, function: Function, depth: int) -> str | None:
        """What ``function`` returns a time of, shown (``elapsed_time at f.py:12``), or None;
        ``depth``: the calls followed to it."""
        key = (id(function), depth)
        known = self._returns.get(key)
        if known is not None and known[0] is function:
            return known[1]
        self._returns[key] = (function, None)  # a call of itself returns none
        values = [r.value for r in own_returns(function) if r.value is not None]
        shown = None
        if values and self._mentions_time(module):
            times = self._times(module, function, depth)
            if times.reads and any(times.timed(v) for v in values):
                shown = times.source
        self._returns[key] = (function, shown)
        return shown

    def _mentions_time(self, module: Module) -> bool:
        """Whether ``module``'s text names a clock, a CUDA event's time or a benchmark."""
        known = self._texts.get(id(module))
        if known is None or known[0] is not module:
            text = "\n".join(module.lines)
            known = self._texts[id(module)] = (module, any(w in text for w in TIME_WORDS))
        return known[1]

    def _callee(
        self, module: Module, call: ast.Call, owner: str | None
    ) -> tuple[Module, Function] | None:
        """The tree's function ``call`` calls: by name, ``self.m``, or an untyped object's
        method ``m`` that one class of ``module`` alone defines."""
        func = call.func
        dotted = module.resolve(func, owner)
        if dotted is not None:
            return self._locate(dotted) if module.in_tree(dotted) else None
        if not isinstance(func, ast.Attribute):
            return None
        known = self._methods.get((id(module), func.attr))
        if known is None or known[0] is not module:
            suffix = f".{func.attr}"
            methods = [
                node
                for local, node in module.definitions.items()
                if local.endswith(suffix) and local.count(".") == 1
            ]
            only = methods[0] if len(methods) == 1 else None
            method = only if isinstance(only, ast.FunctionDef | ast.AsyncFunctionDef) else None
            known = self._methods[(id(module), func.attr)] = (module, method)
        return None if known[1] is None else (module, known[1])


def _remembered(ask: Callable[[ast.Call], str | None]) -> Callable[[ast.Call], str | None]:
    """``ask``, answered once per call node."""
    answers: dict[int, tuple[ast.Call, str | None]] = {}

    def answer(call: ast.Call) -> str | None:
        known = answers.get(id(call))
        if known is None or known[0] is not call:
            known = answers[id(call)] = (call, ask(call))
        return known[1]

    return answer


def _may_pick(module: Module, function: Function) -> bool:
    """Whether ``function`` holds a shape a race picks with (cheap, before any flow): a
    ``min``/``max``/``sorted`` with a key or of pairs, an arg-pick, ``.index(...)``, or an
    order of two values neither of which is a constant or a count (``t < best_t``)."""
    for node in module.walked(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in PICKS and _keyed_or_paired(node):
                return True
            if isinstance(func, ast.Attribute) and func.attr in (*ARG_PICKS, "index"):
                return True
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], _ORDER)
            and _measured(node.left)
            and _measured(node.comparators[0])
        ):
            return True
    return False


def _keyed_or_paired(call: ast.Call) -> bool:
    if any(k.arg == "key" for k in call.keywords):
        return True
    first = call.args[0] if call.args else None
    return isinstance(first, ast.ListComp | ast.GeneratorExp) or (
        isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "zip"
    )


def _measured(node: ast.expr) -> bool:
    """Whether an operand may be a time: no constant, no ``len(...)``."""
    if isinstance(node, ast.Constant):
        return False
    if isinstance(node, ast.UnaryOp):
        return _measured(node.operand)
    return not (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
    )


def _races(times: Times) -> Iterator[Race]:
    """The picks of the function ``times`` reads that its times decide."""
    module = times.module
    for node in module.walked(times.function):
        how = _pick(times, node)
        if how is not None and not _reported(module, node):
            line = getattr(node, "lineno", times.function.lineno)
            shown = f"candidates timed ({times.source}), {how}"
            yield Race(Mark(MarkKind.AUTOTUNE, shown, module.rel, line), node)


def _pick(times: Times, node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        return _picked_by(times, node)
    if (
        isinstance(node, ast.If | ast.IfExp)
        and _two_times(times, node.test)
        and (isinstance(node, ast.IfExp) or _keeps(times, node))
    ):
        return "the faster one kept"
    if isinstance(node, _COMPREHENSIONS):
        elt = node.value if isinstance(node, ast.DictComp) else node.elt
        tests = [t for g in node.generators for t in g.ifs]
        if any(_two_times(times, t) for t in tests) and not times.timed(elt):
            return "the slow ones dropped"
    return None


def _picked_by(times: Times, call: ast.Call) -> str | None:
    func = call.func
    if is_pick(call) and isinstance(func, ast.Name):
        key = next((k.value for k in call.keywords if k.arg == "key"), None)
        if key is not None and _key_times(times, key, call):
            return f"the fastest picked by {func.id}(..., key=...)"
        if key is None and call.args and _paired(times, call.args[0]):
            return f"the fastest picked by {func.id}() of (time, candidate) pairs"
        return None
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in ARG_PICKS and (
        times.timed(func.value) or any(times.timed(a) for a in call.args)
    ):
        return f"the fastest picked by {func.attr}"
    if func.attr == "index" and times.timed(func.value) and call.args and is_pick(call.args[0]):
        return "the fastest picked by its index"
    return None


def _key_times(times: Times, key: ast.expr, call: ast.Call) -> bool:
    if isinstance(key, ast.Lambda):
        return times.timed(key.body) or (bool(call.args) and times.timed(call.args[0]))
    return times.timed(key)


def _paired(times: Times, node: ast.expr) -> bool:
    """``(t, config) for ...`` or ``zip(times, configs)``: times beside what they time."""
    if isinstance(node, ast.ListComp | ast.GeneratorExp) and isinstance(node.elt, ast.Tuple):
        flags = [times.timed(e) for e in node.elt.elts]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip":
        flags = [times.timed(a) for a in node.args]
    else:
        return False
    return any(flags) and not all(flags)


def _two_times(times: Times, test: ast.expr) -> bool:
    """Whether ``test`` orders two times (``t < best_t``), not a time against a limit."""
    return any(
        isinstance(node, ast.Compare)
        and all(isinstance(o, _ORDER) for o in node.ops)
        and sum(1 for o in (node.left, *node.comparators) if times.timed(o)) >= 2
        for node in walk(test)
    )


def _keeps(times: Times, node: ast.If) -> bool:
    """Whether the body of ``node`` keeps something besides the times it compares: binds a
    name or attribute to a value that is no constant and no time or clock reading (``best =
    config``), or returns one."""
    compared = {
        k for n in walk(node.test) if isinstance(n, ast.Name | ast.Attribute) for k in keys_of(n)
    }
    for statement in (s for inner in node.body for s in walk(inner)):
        if not isinstance(statement, ast.Return | ast.Assign):
            continue
        if not _candidate(times, statement.value):
            continue
        if isinstance(statement, ast.Return) or any(
            k not in compared for t in statement.targets for k in keys_of(t)
        ):
            return True
    return False


def _candidate(times: Times, value: ast.expr | None) -> bool:
    """Whether ``value`` may be a candidate: no constant, no time, no clock reading."""
    if value is None or isinstance(value, ast.Constant) or times.timed(value):
        return False
    return not any(isinstance(n, ast.expr) and times.clock(n) for n in walk(value))


def _reported(module: Module, node: ast.AST) -> bool:
    """Whether ``node`` only makes a message (inside a ``print``, a log call, an f-string)."""
    for outer in module.ancestors(node):
        if isinstance(outer, ast.stmt):
            return False
        if isinstance(outer, ast.JoinedStr):
            return True
        if isinstance(outer, ast.Call):
            func = outer.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in _REPORTS:
                return True
    return False
