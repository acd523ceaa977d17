"""A reduction split in parts whose count the run chooses: a hazard of a launcher's code.

A launcher allocates a buffer with one dimension per part, launches a kernel whose grid has
that dimension (each part writes its partial result), and then a second kernel that reads the
buffer on a grid without it (the parts combined). The allocation and the second launch may sit
in a function of the tree the launcher calls (``out, partial, stride = _split_out(M, N,
split)`` returning ``torch.empty((split, M, N))``, then ``_split_sum(partial, out)`` launching
the sum: unslothai unsloth kernels/nvfp4.py:564-584, :606-630), one call deep; so may the
function that chooses the count, called through a module name bound to it (``_CONFIG_HOOK =
_fused_config``, nvfp4.py:658). Where the count of parts is chosen at run
time, by a function of the tree given the call's sizes or by the device's properties
(``splits = split_count(max_len)``, ``_num_cus()``), the order in which the result is summed
changes with the batch or the machine. A count fixed in the code, or one only the size of the
reduced tensor sets (``triton.cdiv(numel, BLOCK)``), is not such a split.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence

from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module
from scanner.source.ast_walk import children, walk

Function = ast.FunctionDef | ast.AsyncFunctionDef
# The tree's function a dotted name calls (through re-exports), with its module, or None.
Locate = Callable[[str], tuple[Module, Function] | None]
# Allocations whose positional arguments are the shape (torch.empty(n, s, d), x.new_zeros(...)).
_ALLOCATIONS = frozenset({"torch.empty", "torch.zeros", "torch.ones", "torch.full"})
_NEW = frozenset({"new_empty", "new_zeros", "new_ones", "new_full"})
# The device's properties (torch.cuda.get_device_properties(i).multi_processor_count).
_DEVICE_CALLS = frozenset({"torch.cuda.get_device_properties", "torch.xpu.get_device_properties"})
_DEVICE_FIELDS = frozenset({"multi_processor_count"})
_DEPTH = 3  # local names followed back to what the count is computed from
_SIZES = frozenset({"shape", "size", "numel", "ndim", "stride"})


def split_marks(module: Module, function: Function, locate: Locate) -> list[tuple[Mark, bool]]:
    """The split reductions ``function`` launches, each with whether it runs whenever the
    function does; ``locate`` finds a function of the tree by its dotted name (through
    re-exports: ``triton.cdiv`` re-exported by a package of the tree is not one)."""
    calls = [n for n in module.walked(function) if isinstance(n, ast.Call)]
    launches = [c for c in calls if isinstance(c.func, ast.Subscript)]
    if not launches:
        return []
    split = _Launcher(module, function, locate)
    later = sorted(
        (c for c in calls if c in launches or split.helper_launches(c)),
        key=lambda c: (c.lineno, c.col_offset),
    )
    if len(later) < 2:
        return []
    found: list[tuple[Mark, bool]] = []
    for index, first in enumerate(later):
        if first not in launches:
            continue
        mark = split.first_of(first, later[index + 1 :])
        if mark is not None:
            found.append(mark)
    return found


class _Launcher:
    def __init__(self, module: Module, function: Function, locate: Locate) -> None:
        self.module = module
        self.locate = locate
        self.function = function
        self.bound = _bindings(function)
        self.aliases = _loop_aliases(function)
        self.sometimes = _conditional(function)
        self._chosen: dict[str, str | None] = {}
        self._helpers: dict[int, list[tuple[set[str], list[str]]]] = {}

    def _callee(self, call: ast.Call) -> tuple[Module, Function] | None:
        """The tree's function ``call`` calls, also through a module name bound once to
        one (``_CONFIG_HOOK = _fused_config``)."""
        if isinstance(call.func, ast.Subscript):
            return None
        dotted = self.module.resolve(call.func)
        if dotted is None:
            return None
        found = self.locate(dotted)
        if found is None and isinstance(call.func, ast.Name):
            values = self.module.aliases.get(call.func.id, [])
            if len(values) == 1 and isinstance(values[0], ast.Name | ast.Attribute):
                target = self.module.resolve(values[0])
                found = self.locate(target) if target is not None else None
        return found

    def helper_launches(self, call: ast.Call) -> list[tuple[set[str], list[str]]]:
        """The launches of the tree's function ``call`` calls, each as its grid's names and
        the names it hands the kernel, both in the caller's names: a parameter stands for
        the caller's name given for it; the helper's own locals are left out."""
        known = self._helpers.get(id(call))
        if known is not None:
            return known
        found: list[tuple[set[str], list[str]]] = []
        callee = self._callee(call)
        if callee is not None:
            module, helper = callee
            given = _given(helper, call)
            inner = _Launcher(module, helper, self.locate)
            for node in module.walked(helper):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
                    grid = {given[n] for n in inner._grid(node) if n in given}
                    handed = [given[n] for n in inner._handed(node) if n in given]
                    if handed:
                        found.append((grid, handed))
        self._helpers[id(call)] = found
        return found

    def first_of(self, first: ast.Call, later: list[ast.Call]) -> tuple[Mark, bool] | None:
        """The split reduction whose parts ``first`` writes, combined by one of ``later``."""
        grid = self._grid(first)
        for buffer in self._handed(first):
            for count in (n for n in self._shape(buffer) if n in grid):
                chooser = self._chooser(count)
                if chooser is None:
                    continue
                second = next((c for c in later if self._combines(c, buffer, count)), None)
                if second is None:
                    continue
                assert isinstance(first.func, ast.Subscript)
                combiner = second.func.value if isinstance(second.func, ast.Subscript) else None
                what = (
                    f"{ast.unparse(first.func.value)} writes {buffer} in {count} parts, "
                    f"{ast.unparse(combiner or second.func)}"
                    f"{'' if combiner else '()'} combines them ({count} from {chooser})"
                )
                always = first not in self.sometimes and second not in self.sometimes
                return Mark(MarkKind.SPLIT, what, self.module.rel, first.lineno), always
        return None

    def _combines(self, later: ast.Call, buffer: str, count: str) -> bool:
        """Whether ``later`` launches a kernel that reads ``buffer`` on a grid without
        ``count``, itself or in the function of the tree it calls."""
        if isinstance(later.func, ast.Subscript):
            return buffer in self._handed(later) and count not in self._grid(later)
        return any(
            buffer in handed and count not in grid for grid, handed in self.helper_launches(later)
        )

    def _grid(self, launch: ast.Call) -> set[str]:
        assert isinstance(launch.func, ast.Subscript)
        grid: ast.expr = launch.func.slice
        if isinstance(grid, ast.Name) and len(self.bound.get(grid.id, ())) == 1:
            grid = self.bound[grid.id][0]
        if isinstance(grid, ast.Lambda):
            grid = grid.body
        return _names(grid)

    def _handed(self, launch: ast.Call) -> list[str]:
        """The local names a launch hands the kernel, and what a loop binds them to, in the
        order written."""
        handed: list[str] = []
        for value in (*launch.args, *(k.value for k in launch.keywords)):
            if isinstance(value, ast.Name):
                handed.extend((value.id, *self.aliases.get(value.id, ())))
        return list(dict.fromkeys(handed))

    def _shape(self, name: str, helper: bool = True) -> list[str]:
        """The names in the shape of the buffer ``name`` is bound to, once, by an
        allocation, or (``helper``) by a call of the tree's function that returns one (at
        the place of ``name`` where the caller unpacks a tuple), its parameters in the
        caller's names."""
        values = self.bound.get(name, ())
        if len(values) != 1 or not isinstance(values[0], ast.Call):
            return []
        shape = self._allocated(values[0])
        if shape is not None:
            return shape
        callee = self._callee(values[0]) if helper else None
        if callee is None:
            return []
        module, made_by = callee
        at = _unpacked_at(self.module, values[0], name)
        given = _given(made_by, values[0])
        inner = _Launcher(module, made_by, self.locate)
        found: list[str] = []
        for node in module.walked(made_by):
            if not isinstance(node, ast.Return) or node.value is None:
                continue
            value = node.value
            if at is not None:
                if not isinstance(value, ast.Tuple) or at >= len(value.elts):
                    continue
                value = value.elts[at]
            if isinstance(value, ast.Name):
                found.extend(given[n] for n in inner._shape(value.id, False) if n in given)
        return list(dict.fromkeys(found))

    def _allocated(self, call: ast.Call) -> list[str] | None:
        """The names in the shape ``call`` allocates; None where it allocates nothing."""
        func = call.func
        if not (
            (isinstance(func, ast.Attribute) and func.attr in _NEW)
            or self.module.resolve(func) in _ALLOCATIONS
        ):
            return None
        return list(dict.fromkeys(_ordered_names(call.args)))

    def _chooser(self, count: str) -> str | None:
        """What chooses ``count`` at run time (``split_count()``, the device's properties),
        as shown; None when the code fixes it or the reduced size alone sets it."""
        if count not in self._chosen:
            self._chosen[count] = self._chosen_by(count, _DEPTH)
        return self._chosen[count]

    def _chosen_by(self, name: str, depth: int) -> str | None:
        base, _, attribute = name.partition(".")
        if _SIZES.intersection(attribute.split(".")):
            return None  # a tensor's own size (``x.shape``), whatever made the tensor
        for value in self.bound.get(base, ()):
            for node in _computed_with(value):
                if isinstance(node, ast.Call):
                    shown = self._choosing_call(node)
                    if shown is not None:
                        return shown
                elif isinstance(node, ast.Attribute) and node.attr in _DEVICE_FIELDS:
                    return f"the device's {node.attr}"
                elif (
                    isinstance(node, ast.Name)
                    and depth > 0
                    and node.id != name
                    and node.id in self.bound
                ):
                    shown = self._chosen_by(node.id, depth - 1)
                    if shown is not None:
                        return shown
        return None

    def _choosing_call(self, call: ast.Call) -> str | None:
        dotted = self.module.resolve(call.func)
        if dotted is None:
            return None
        if dotted in _DEVICE_CALLS:
            return f"{dotted}()"
        if self._callee(call) is not None and any(
            not isinstance(a, ast.Constant) for a in (*call.args, *(k.value for k in call.keywords))
        ):
            return f"{ast.unparse(call.func)}()"
        return None


def _given(helper: Function, call: ast.Call) -> dict[str, str]:
    """The caller's local name ``call`` gives for each parameter of ``helper`` it binds to
    a name (positionally or by keyword)."""
    arguments = helper.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    given: dict[str, str] = {}
    for at, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            break
        if at < len(names) and isinstance(value, ast.Name):
            given[names[at]] = value.id
    for keyword in call.keywords:
        if keyword.arg is not None and isinstance(keyword.value, ast.Name):
            given[keyword.arg] = keyword.value.id
    return given


def _unpacked_at(module: Module, call: ast.Call, name: str) -> int | None:
    """The place of ``name`` in the tuple a caller unpacks ``call`` into (``a, buf, s =
    call``); None where ``name`` takes the whole value."""
    outer = module.parent(call)
    if isinstance(outer, ast.Assign) and len(outer.targets) == 1:
        target = outer.targets[0]
        if isinstance(target, ast.Tuple | ast.List):
            for at, element in enumerate(target.elts):
                if isinstance(element, ast.Name) and element.id == name:
                    return at
    return None


def _computed_with(value: ast.expr) -> Iterator[ast.AST]:
    """The nodes of ``value``, leaving out what a size is read from (``x`` of ``x.shape``,
    ``x.numel()``): the code that made a tensor does not choose its size's use."""
    pending: list[ast.AST] = [value]
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, ast.Attribute) and node.attr in _SIZES:
            continue
        pending.extend(children(node))


def _names(node: ast.AST) -> set[str]:
    return set(_ordered_names([node]))


def _ordered_names(nodes: Sequence[ast.AST]) -> list[str]:
    """The local names in ``nodes`` in the order written, an attribute of one by its dotted
    name (``config.num_splits``: a count kept on an object the launcher made)."""
    found: list[tuple[int, int, str]] = []
    pending: list[ast.AST] = list(nodes)
    while pending:
        node = pending.pop()
        dotted = _dotted(node)
        if dotted is not None and isinstance(node, ast.expr):
            found.append((node.lineno, node.col_offset, dotted))
            continue
        pending.extend(children(node))
    return [name for _, _, name in sorted(found)]


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def _bindings(function: Function) -> dict[str, list[ast.expr]]:
    """The values each local name is assigned, a name unpacked from a tuple taking the
    whole value (``a, n = split(x)``: ``n`` is computed by ``split(x)``)."""
    found: dict[str, list[ast.expr]] = {}
    for node in walk(function):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            for name in _targets(target):
                found.setdefault(name, []).append(value)
    return found


def _targets(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _targets(element)
    elif isinstance(target, ast.Starred):
        yield from _targets(target.value)


def _loop_aliases(function: Function) -> Mapping[str, list[str]]:
    """``for buf, w in ((a, 1), (b, 2)):``: ``buf`` is ``a`` and then ``b``."""
    found: dict[str, list[str]] = {}
    for node in walk(function):
        if not isinstance(node, ast.For | ast.AsyncFor) or not isinstance(
            node.iter, ast.Tuple | ast.List
        ):
            continue
        for element in node.iter.elts:
            pairs: list[tuple[ast.expr, ast.expr]] = [(node.target, element)]
            if isinstance(node.target, ast.Tuple) and isinstance(element, ast.Tuple):
                if len(node.target.elts) != len(element.elts):
                    continue
                pairs = list(zip(node.target.elts, element.elts, strict=True))
            for target, value in pairs:
                if isinstance(target, ast.Name) and isinstance(value, ast.Name):
                    found.setdefault(target.id, []).append(value.id)
    return found


def _conditional(function: Function) -> set[ast.AST]:
    """The nodes of ``function`` that run only on some calls (under an ``if``, a short
    circuit, an exception handler, a closure)."""
    found: set[ast.AST] = set()
    for node in walk(function):
        parts: list[ast.AST] = []
        if isinstance(node, ast.If | ast.While):
            parts = [*node.body, *node.orelse]
        elif isinstance(node, ast.IfExp):
            parts = [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            parts = list(node.values[1:])
        elif isinstance(node, ast.Try):
            parts = list(node.handlers)
        elif node is not function and isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        ):
            parts = [node]
        for part in parts:
            found.update(walk(part))
    return found
