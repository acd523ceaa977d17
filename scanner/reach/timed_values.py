"""The values one function holds that are times it measured.

A time is what a CUDA timing event pair gives (``start.elapsed_time(end)``), a difference of
clock readings (``time.perf_counter() - t0``), what ``do_bench`` returns, or what a function
of the tree returns that is one (asked of ``returns_time``). It is followed through the
function's stores: a name, an attribute (``self.best_t``) or a container (``times[i] = t``,
``times.append(t)``) a time is put in holds one, and so does what is computed from one
(``statistics.fmean(samples)``, ``totals[i] / n``); a loop over such a container takes one.
A count of times (``len(times)``) and a candidate picked by them (``min(c, key=...)``) are
no time.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from scanner.reach.modules import Module

Function = ast.FunctionDef | ast.AsyncFunctionDef
# What a call of the tree returns a time of, shown, or None.
ReturnsTime = Callable[[ast.Call], str | None]

CLOCKS = frozenset(
    {
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.time",
        "time.time_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "timeit.default_timer",
    }
)
BENCHES = frozenset(
    {
        "triton.testing.do_bench",
        "triton.testing.do_bench_cudagraph",
        "timeit.timeit",
        "timeit.repeat",
    }
)
# Words the text of a module that reads a time holds (a cheap test before any flow).
TIME_WORDS = ("elapsed_time", "perf_counter", "time(", "monotonic", "do_bench", "timeit")
PICKS = frozenset({"min", "max", "sorted"})  # builtins a candidate is picked with
ARG_PICKS = frozenset({"argmin", "argmax", "argsort"})
_STORES = frozenset({"append", "extend", "insert", "add", "update", "appendleft"})
# Builtins whose value says nothing of the time they are handed: a count, a type, a truth.
_COUNTS = frozenset({"len", "range", "isinstance", "bool", "id", "type", "hash"})
_PASSES = 4  # rounds of the function's stores a time is followed through


class Times:
    """The names, containers and attributes one function stores times in."""

    def __init__(self, module: Module, function: Function, returns_time: ReturnsTime) -> None:
        self.module = module
        self.function = function
        self._returns_time = returns_time
        self.durations: set[str] = set()
        self.clocks: set[str] = set()  # names holding a clock reading (``t0``)
        self.source: str | None = None  # the first time read, shown
        self._nodes = module.walked(function)
        self.reads = self._reads_time()
        if self.reads:
            for _ in range(_PASSES):
                before = len(self.durations) + len(self.clocks)
                self._stores()
                if len(self.durations) + len(self.clocks) == before:
                    break

    def _reads_time(self) -> bool:
        """Whether the function reads a clock, a CUDA event's time, a benchmark, or calls a
        function that returns a time (asked last: it reads the functions called)."""
        calls = [n for n in self._nodes if isinstance(n, ast.Call)]
        for call in calls:
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "elapsed_time":
                return True
            name = self.module.resolve_api(func)
            if name in CLOCKS or name in BENCHES:
                return True
        used = [c for c in calls if not isinstance(self.module.parent(c), ast.Expr)]
        return any(self._returned(call) for call in used)

    def _stores(self) -> None:
        for node in self._nodes:
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
                if node.value is None:
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                keys = self.durations if self.timed(node.value) else None
                if keys is None and self.clock(node.value):
                    keys = self.clocks
                if keys is not None:
                    keys.update(k for t in targets for k in keys_of(t))
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                for target, values in _iterated(node.target, node.iter):
                    if self.timed(values):
                        self.durations.update(keys_of(target))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _STORES
                and any(self.timed(a) for a in node.args)
            ):
                self.durations.update(keys_of(node.func.value))

    def timed(self, node: ast.expr) -> bool:
        """Whether ``node``'s value is a time or holds one."""
        if isinstance(node, ast.Name | ast.Attribute):
            key = _key(node)
            if key is not None and key in self.durations:
                return True
            return isinstance(node, ast.Attribute) and self.timed(node.value)
        if isinstance(node, ast.Subscript | ast.Starred | ast.Await | ast.NamedExpr):
            return self.timed(node.value)
        if isinstance(node, ast.Call):
            return self._timed_call(node)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Sub) and self._lapse(node):
                return True
            return self.timed(node.left) or self.timed(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.timed(node.operand)
        if isinstance(node, ast.IfExp):
            return self.timed(node.body) or self.timed(node.orelse)
        if isinstance(node, ast.BoolOp):
            return any(self.timed(v) for v in node.values)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(self.timed(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(self.timed(v) for v in node.values)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return self.timed(node.elt)
        if isinstance(node, ast.DictComp):
            return self.timed(node.value)
        return False

    def _timed_call(self, call: ast.Call) -> bool:
        func = call.func
        if picks_candidate(call) or (isinstance(func, ast.Name) and func.id in _COUNTS):
            return False
        if isinstance(func, ast.Attribute):
            if func.attr == "elapsed_time":
                self._found(f"{ast.unparse(func)}() (CUDA timing events)", call)
                return True
            if func.attr == "index" and call.args and is_pick(call.args[0]):
                return False  # ``times.index(min(times))``: the candidate's position
            if self.timed(func.value):
                return True
        name = self.module.resolve_api(func)
        if name in BENCHES:
            self._found(name, call)
            return True
        if any(self.timed(a) for a in call.args) or any(self.timed(k.value) for k in call.keywords):
            return True
        return self._returned(call)

    def _returned(self, call: ast.Call) -> bool:
        shown = self._returns_time(call)
        if shown is not None and self.source is None:
            self.source = shown
        return shown is not None

    def _lapse(self, node: ast.BinOp) -> bool:
        """``time.perf_counter() - start``: a clock read less an earlier one."""
        left, right = node.left, node.right
        if (
            self._clock_call(left)
            or self._clock_call(right)
            or (self.clock(left) and self.clock(right))
        ):
            clock = left if isinstance(left, ast.Call) else right
            self._found(f"a difference of {ast.unparse(clock)} readings", node)
            return True
        return False

    def _clock_call(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self.module.resolve_api(node.func) in CLOCKS

    def clock(self, node: ast.expr) -> bool:
        """Whether ``node`` is a clock reading (``time.perf_counter()``, ``t0``)."""
        if self._clock_call(node):
            return True
        key = _key(node) if isinstance(node, ast.Name | ast.Attribute) else None
        return key is not None and key in self.clocks

    def _found(self, shown: str, node: ast.expr) -> None:
        if self.source is None:
            self.source = f"{shown} at {self.module.rel}:{node.lineno}"


def is_pick(node: ast.expr) -> bool:
    """``min(...)``, ``max(...)`` or ``sorted(...)``."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PICKS


def picks_candidate(call: ast.Call) -> bool:
    """A ``min``/``max``/``sorted`` with a key, or an arg-pick: its value is a candidate."""
    func = call.func
    if is_pick(call):
        return any(k.arg == "key" for k in call.keywords)
    return isinstance(func, ast.Attribute) and func.attr in ARG_PICKS


def keys_of(target: ast.expr) -> list[str]:
    """The names a store into ``target`` puts a value in (``x[i] = t`` stores into ``x``)."""
    if isinstance(target, ast.Name | ast.Attribute):
        key = _key(target)
        return [] if key is None else [key]
    if isinstance(target, ast.Subscript | ast.Starred):
        return keys_of(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [k for e in target.elts for k in keys_of(e)]
    return []


def _key(node: ast.Name | ast.Attribute) -> str | None:
    """``x`` or ``self.best_t``: the name a store and a load share, or None."""
    if isinstance(node, ast.Name):
        return node.id
    base = node.value
    if isinstance(base, ast.Name | ast.Attribute):
        inner = _key(base)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _iterated(target: ast.expr, values: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """What a loop's target takes from what it iterates, part by part: ``for i, t in
    enumerate(times)`` puts a time in ``t`` alone, ``for c, t in zip(configs, times)`` and
    ``for c, t in timed.items()`` in ``t``."""
    if isinstance(target, ast.Tuple | ast.List) and isinstance(values, ast.Call):
        func, elts = values.func, target.elts
        if isinstance(func, ast.Name) and func.id == "enumerate" and values.args and len(elts) == 2:
            return [(elts[1], values.args[0])]
        if isinstance(func, ast.Name) and func.id == "zip" and len(values.args) == len(elts):
            return list(zip(elts, values.args, strict=True))
        if isinstance(func, ast.Attribute) and func.attr == "items" and len(elts) == 2:
            return [(elts[1], func.value)]
    return [(target, values)]
