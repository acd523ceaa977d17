"""The settings a tree's own deterministic mode writes for the processes it starts.

sglang's ``if cfg.enable_deterministic_inference:`` ... ``os.environ["NCCL_ALGO"] =
"allreduce:tree"`` (srt/arg_groups/attention_hook.py:599, :676): a write of one known
value, by the tree's Python code, on the side of a test that only the deterministic mode
takes. The test is the mode where it reads a knob whose role is ``determinism`` and its
side never runs with that mode off (its branches, ``scanner.reach.sides``), or where it
tests a field the tree hands on into such a knob (``envs.X.set("1" if cfg.F else "0")``,
srt/arg_groups/serving_hook.py:444, then ``if cfg.F:``). A write in a module-level
function is under the mode where every use of that function outside the tree's tests is a
call on the mode's side (vllm-ascend's ``override_envs_for_invariance``,
vllm_ascend/batch_invariant.py:76-83, called only under ``if envs.VLLM_BATCH_INVARIANT:``,
:151-156), other conditions in the function allowed as beside the test, followed through
``MAX_CALLERS`` such functions. A variable the tree's code also reads outside its tests is
its own knob, with a role of its own: left out; so is one the mode writes with two values,
a value the run computes, or removes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from scanner.languages import Language
from scanner.model import Knob, ModeWrite, Polarity, Role, Write, WriteKind
from scanner.reach.modules import Module, Tree
from scanner.reach.sides import Branch
from scanner.suite_files import TEST_FILE

_SETS = (WriteKind.SET, WriteKind.SETDEFAULT, WriteKind.PUTENV)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_CASTS = frozenset({"str", "int", "bool"})  # ``str(int(cfg.F))`` hands the field on as it is
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_CALLERS = 2  # functions followed from a write to the mode's test its callers sit under


@dataclass(frozen=True, slots=True)
class _Mode:
    """A determinism knob, the values that turn its mode on and off, its value that turns
    it on (what a recipe writes) and the one that turns it off (None: unset)."""

    knob: Knob
    on: frozenset[str]
    off: frozenset[str]
    value: str
    off_value: str | None


@dataclass(frozen=True, slots=True)
class _Field:
    """A field the tree hands on into a determinism knob: true (``holds``) is the mode on."""

    mode: _Mode
    holds: bool
    where: str  # the write that hands it on


def mode_writes(
    tree: Tree,
    knobs: Sequence[Knob],
    writes: Sequence[Write],
    branches_of: Callable[[Knob], list[Branch]],
) -> tuple[ModeWrite, ...]:
    """The settings the tree's deterministic mode writes, one per variable, by name."""
    modes = [m for k in knobs if (m := _mode(k)) is not None]
    # A variable only the tree's tests read is no knob of its code: they check the write.
    read = {k.name for k in knobs if not all(TEST_FILE.search(s.path) for s in k.sites)}
    python = [w for w in writes if w.name is not None and w.language is Language.PYTHON]
    candidates = [w for w in python if w.name not in read and w.kind in _SETS]
    if not modes or not candidates:
        return ()
    tests = _Tests(tree, modes, python, branches_of)
    under: dict[str, list[tuple[Write, tuple[int, str]]]] = {}
    named = {w.name for w in candidates}
    for write in python:
        if write.name not in named:
            continue
        found = tests.under_mode(write)
        if found is not None:
            assert write.name is not None
            under.setdefault(write.name, []).append((write, found))
    out = []
    for name, held in sorted(under.items()):
        values = {w.value if w.kind in _SETS else None for w, _ in held}
        if len(values) != 1 or None in values:
            continue  # two values, a computed one, or a removal under the mode
        write, (test_line, shown) = min(held, key=lambda pair: pair[0].sort_key)
        out.append(
            ModeWrite(
                name=name,
                value=str(write.value),
                path=write.path,
                line=write.line,
                test_line=test_line,
                mode=shown,
            )
        )
    return tuple(out)


def _mode(knob: Knob) -> _Mode | None:
    """``knob``'s deterministic mode, where its role is ``determinism``."""
    if knob.role is not Role.DETERMINISM:
        return None
    on = {v for s in knob.sites for v in s.gate.on_values} | {knob.on_value}
    off = {v for s in knob.sites for v in s.gate.off_values} | {knob.off_value}
    value, off_value = knob.on_value, knob.off_value
    if knob.polarity is Polarity.DISABLE:
        on, off, value, off_value = off, on, off_value, value
    if value is None:
        return None
    return _Mode(knob, _strings(on), _strings(off - on), value, off_value)


def _strings(values: set[str | None]) -> frozenset[str]:
    return frozenset(v for v in values if v is not None)


class _Tests:
    """Which tests of the tree are its deterministic mode's, read once per module."""

    def __init__(
        self,
        tree: Tree,
        modes: Sequence[_Mode],
        python: Sequence[Write],
        branches_of: Callable[[Knob], list[Branch]],
    ) -> None:
        self.tree = tree
        self.modes = modes
        self.branches_of = branches_of
        self._sides: dict[tuple[int, bool], list[tuple[_Mode, Branch]]] | None = None
        self._called: dict[tuple[str, str], list[tuple[Module, ast.Call]]] = {}
        self.fields: dict[str, _Field] = {}
        by_name = {m.knob.name: m for m in modes}
        for write in python:
            mode = by_name.get(write.name or "")
            if mode is not None and write.kind in _SETS and write.value is None:
                found = self._handed_field(write, mode)
                if found is not None:
                    self.fields.setdefault(*found)

    def under_mode(self, write: Write) -> tuple[int, str] | None:
        """The line of the first test around ``write`` (in its function, or around every
        call of it) whose side it sits on only the deterministic mode takes, and what makes
        it the mode's; None otherwise."""
        module = self.tree.module_at(write.path)
        if module is None:
            return None
        return self._under(module, write.line, MAX_CALLERS)

    def _under(self, module: Module, line: int, depth: int) -> tuple[int, str] | None:
        path = module.locate.statements_at(line)
        start = max((i + 1 for i, s in enumerate(path) if isinstance(s, _SCOPES)), default=0)
        for outer, inner in zip(path[start:], path[start + 1 :], strict=False):
            if not isinstance(outer, ast.If):
                continue
            holds = any(s is inner for s in outer.body)
            shown = self._is_mode(outer.test, holds)
            if shown is not None:
                return (
                    outer.lineno,
                    f"`{ast.unparse(outer.test)}` at {module.rel}:{outer.lineno}{shown}",
                )
        function = path[start - 1] if start else None
        if (
            depth == 0
            or not isinstance(function, _FUNCTIONS)
            or start != 1  # a method or a nested function: its callers are not followed
        ):
            return None
        found = [
            self._under(m, call.lineno, depth - 1) for m, call in self._calls(module, function)
        ]
        if not found or None in found:
            return None
        test_line, shown = min(f for f in found if f is not None)
        where = f"{module.rel}:{function.lineno}"
        return test_line, f"{function.name} ({where}), called only under {shown}"

    def _calls(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.Call]]:
        """Each call of the module-level ``function`` outside the tree's tests; empty where
        some use of it is no call (handed on, it may be called anywhere). Another module
        names the function's module to reach it (found once per function)."""
        key = (module.rel, function.name)
        known = self._called.get(key)
        if known is None:
            known = self._called[key] = self._find_calls(module, function)
        return known

    def _find_calls(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[Module, ast.Call]]:
        qualified = module.qualified(function.name)
        word, home = function.name.encode(), module.name.rsplit(".", 1)[-1].encode()
        found: list[tuple[Module, ast.Call]] = []
        for rel in sorted(self.tree.rels()):
            if TEST_FILE.search(rel):
                continue
            data = self.tree.data(rel)
            if data is None or word not in data or (rel != module.rel and home not in data):
                continue
            other = self.tree.module(rel)
            if other is None:
                continue
            for load in other.loads_named(function.name):
                if other.resolve(load) != qualified:
                    continue
                call = other.parent(load)
                if not isinstance(call, ast.Call) or call.func is not load:
                    return []
                found.append((other, call))
        return found

    def _is_mode(self, test: ast.expr, holds: bool) -> str | None:
        """What makes the ``holds`` side of ``test`` the deterministic mode's, or None."""
        for atom, positive in _required(test, holds):
            if isinstance(atom, ast.Attribute) and atom.attr in self.fields:
                handed = self.fields[atom.attr]
                if handed.holds is positive:
                    return (
                        f", which {handed.where} hands on as "
                        f"{handed.mode.knob.name}, a deterministic mode "
                        f"({handed.mode.knob.role_reason})"
                    )
        for mode, branch in self._branches().get((id(test), holds), ()):
            on, off = branch.runs(mode.value), branch.runs(mode.off_value)
            if on is None or off is None or not any(on) or any(off):
                continue
            return (
                f", which reads {mode.knob.name}, a deterministic mode "
                f"({mode.knob.role_reason}), and this side runs only with it on"
            )
        return None

    def _branches(self) -> dict[tuple[int, bool], list[tuple[_Mode, Branch]]]:
        """The branches the determinism knobs decide, by their test and side (found once)."""
        if self._sides is None:
            self._sides = {}
            for mode in self.modes:
                for branch in self.branches_of(mode.knob):
                    key = (id(branch.test), branch.holds)
                    self._sides.setdefault(key, []).append((mode, branch))
        return self._sides

    def _handed_field(self, write: Write, mode: _Mode) -> tuple[str, _Field] | None:
        """The field ``write`` hands on into ``mode``'s knob (``"1" if cfg.F else "0"``,
        ``str(int(cfg.F))``), with the side of it that turns the mode on."""
        module = self.tree.module_at(write.path)
        value = _written(module, write) if module is not None else None
        if value is None:
            return None
        where = f"{write.path}:{write.line}"
        if isinstance(value, ast.IfExp):
            body, orelse = _texts(value.body), _texts(value.orelse)
            if body & mode.on and orelse & mode.off:
                holds = True
            elif orelse & mode.on and body & mode.off:
                holds = False
            else:
                return None
            for atom, positive in _required(value.test, holds):
                if isinstance(atom, ast.Attribute):
                    return atom.attr, _Field(mode, positive, where)
            return None
        field = _uncast(value)
        truthy = {"1", "True"} & mode.on and {"0", "False"} & mode.off
        if isinstance(field, ast.Attribute) and truthy:
            return field.attr, _Field(mode, True, where)
        return None


def _written(module: Module, write: Write) -> ast.expr | None:
    """The value expression ``write`` writes: an assignment's value, or a setter's last
    argument (``envs.X.set(v)``, ``os.environ.setdefault(N, v)``, ``os.putenv(N, v)``)."""
    for node in module.locate.nodes_on(write.line):
        if getattr(node, "col_offset", None) != write.column - 1:
            continue
        if isinstance(node, ast.Assign):
            return node.value
        if isinstance(node, ast.Call) and node.args and not node.keywords:
            return node.args[-1]
    return None


def _uncast(value: ast.expr) -> ast.expr:
    """``value`` without the casts around it (``str(int(x))`` is ``x``)."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _CASTS
        and len(value.args) == 1
        and not value.keywords
    ):
        value = value.args[0]
    return value


def _texts(value: ast.expr) -> frozenset[str]:
    """The text a constant is written as (``True`` as ``True`` or ``1``); none otherwise."""
    if not isinstance(value, ast.Constant):
        return frozenset()
    if isinstance(value.value, bool):
        return frozenset({str(value.value), str(int(value.value))})
    if isinstance(value.value, str | int):
        return frozenset({str(value.value)})
    return frozenset()


def _required(test: ast.expr, holds: bool) -> Iterator[tuple[ast.expr, bool]]:
    """What the ``holds`` side of ``test`` requires: each operand it needs true (True) or
    false (False); ``a and b`` needs both, ``not (a or b)`` neither."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _required(test.operand, not holds)
    elif isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if holds else ast.Or):
        for operand in test.values:
            yield from _required(operand, holds)
    else:
        yield test, holds
