"""A small abstract interpreter: run a scope with one variable set to one value.

It executes the statements of a function (or the module-level statements
after a read) with concrete values where they are known and ``UNKNOWN``
elsewhere, following ``if`` branches, local assignments, early returns,
``try`` handlers and calls into wrapper functions. On the way it records what
the gate verdict needs: the first branch tests that depend on the variable,
the value returned, and the value of each expression enclosing the read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from scanner.interpret import calls
from scanner.interpret import operations as ops
from scanner.interpret.expressions import evaluate_expression
from scanner.interpret.frames import Frame, body_statements, collect_bindings, statements_bindings
from scanner.interpret.values import RAISED, UNKNOWN, V, derived, truthiness
from scanner.syntax.index import Wrapper, WrapperIndex

MAX_STEPS = 20_000

NOT_SEEN = object()


class _OutOfSteps(Exception):
    pass


@dataclass(slots=True)
class Flow:
    """How a statement ended."""

    kind: str  # "next", "return", "raise", "break", "continue"
    value: V | None = None


NEXT = Flow("next")


@dataclass(slots=True)
class Observation:
    """What one run of a scope showed about the variable."""

    flow: Flow = field(default_factory=lambda: NEXT)
    tests: list[tuple[int, V, bool]] = field(default_factory=list)  # (node id, value, None-check)
    chain: dict[int, V] = field(default_factory=dict)
    default: object = NOT_SEEN  # what the read fell back to when the variable was unset
    names: list[V] = field(default_factory=list)  # variable names the reads used
    complete: bool = True  # False when the step budget ran out


class Evaluator:
    """Evaluates expressions and statements for one (variable, value) setting."""

    def __init__(
        self,
        index: WrapperIndex,
        *,
        knob: str | None = None,
        value: str | None = None,
        target: frozenset[int] = frozenset(),
        chain: frozenset[int] = frozenset(),
        bindings_cache: dict[int, frozenset[str]] | None = None,
    ) -> None:
        self.index = index
        self.knob = knob
        self.value = value
        self.target = target  # ids of the nodes enclosing the read under study
        self.chain_ids = chain  # ids of the expressions enclosing the read
        self.seen = Observation()
        self._steps = 0
        self._bindings = bindings_cache if bindings_cache is not None else {}

    # -- entry points ------------------------------------------------------

    def run(self, statements: Sequence[cst.CSTNode], frame: Frame) -> Observation:
        """Execute ``statements`` in ``frame`` and return what was observed."""
        try:
            self.seen.flow = self.block(statements, frame)
        except _OutOfSteps:
            self.seen.complete = False
        return self.seen

    def run_expression(self, node: cst.BaseExpression, frame: Frame) -> Observation:
        """Evaluate ``node`` as if it were ``return node`` (a lambda body)."""
        try:
            result = self.expr(node, frame)
            self.seen.flow = Flow("raise") if result.raised else Flow("return", result)
        except _OutOfSteps:
            self.seen.complete = False
        return self.seen

    def evaluate(self, node: cst.BaseExpression, frame: Frame) -> V:
        """The value of one expression (no statements run); UNKNOWN when out of budget."""
        try:
            return self.expr(node, frame)
        except _OutOfSteps:
            return V(UNKNOWN)

    # -- statements --------------------------------------------------------

    def block(self, statements: Sequence[cst.CSTNode], frame: Frame) -> Flow:
        for statement in statements:
            flow = self.statement(statement, frame)
            if flow.kind != "next":
                return flow
        return NEXT

    def statement(self, node: cst.CSTNode, frame: Frame) -> Flow:
        self._tick()
        handler = _STATEMENTS.get(type(node))
        if handler is not None:
            return handler(self, node, frame)
        # match, del, try*, anything newer: forget what it may bind.
        frame.forget(self._bound_in(node))
        return NEXT

    def _simple_line(self, node: cst.SimpleStatementLine, frame: Frame) -> Flow:
        return self.block(node.body, frame)

    def _assign_statement(self, node: cst.Assign, frame: Frame) -> Flow:
        value = self.expr(node.value, frame)
        if value.raised:
            return Flow("raise")
        for target in node.targets:
            self._assign(target.target, value, frame)
        return NEXT

    def _annotated(self, node: cst.AnnAssign, frame: Frame) -> Flow:
        if node.value is not None:
            value = self.expr(node.value, frame)
            if value.raised:
                return Flow("raise")
            self._assign(node.target, value, frame)
        return NEXT

    def _return(self, node: cst.Return, frame: Frame) -> Flow:
        value = self.expr(node.value, frame) if node.value is not None else V(None)
        if value.raised:
            return Flow("raise")
        if frame.control:
            value = V(value.value, True, value.params)
        return Flow("return", value)

    def _expression_statement(self, node: cst.Expr, frame: Frame) -> Flow:
        if isinstance(node.value, cst.SimpleString | cst.ConcatenatedString):
            return NEXT  # a docstring
        return Flow("raise") if self.expr(node.value, frame).raised else NEXT

    def _assert(self, node: cst.Assert, frame: Frame) -> Flow:
        test = self.test(node.test, frame)
        return Flow("raise") if test.raised or test.value is False else NEXT

    def _with(self, node: cst.With, frame: Frame) -> Flow:
        for item in node.items:
            self.expr(item.item, frame)
            if item.asname is not None:
                self._assign(item.asname.name, V(UNKNOWN), frame)
        return self.block(body_statements(node.body), frame)

    def _definition(self, node: cst.FunctionDef | cst.ClassDef, frame: Frame) -> Flow:
        frame.assign(node.name.value, V(UNKNOWN))
        return NEXT

    def _if(self, node: cst.If, frame: Frame) -> Flow:
        test = self.test(node.test, frame)
        if test.raised:
            return Flow("raise")
        orelse = node.orelse
        else_body: Sequence[cst.CSTNode] = ()
        if isinstance(orelse, cst.If):
            else_body = (orelse,)
        elif isinstance(orelse, cst.Else):
            else_body = body_statements(orelse.body)
        if test.known:
            if test.env:
                frame.control = True
            return self.block(body_statements(node.body) if test.value else else_body, frame)
        if id(node.body) in self.target:
            return self.block(body_statements(node.body), frame)
        if orelse is not None and id(orelse) in self.target:
            return self.block(else_body, frame)
        # Neither branch is known to run: forget what either could bind and go on.
        frame.forget(self._bound_in(node))
        return NEXT

    def _loop(self, node: cst.For | cst.While, frame: Frame) -> Flow:
        if isinstance(node, cst.While):
            self.test(node.test, frame)
        else:
            self.expr(node.iter, frame)
        if id(node) not in self.target:
            frame.forget(self._bound_in(node))
            return NEXT
        # The read is inside: run the body once, as the iteration that reaches it.
        if isinstance(node, cst.For):
            self._assign(node.target, V(UNKNOWN), frame)
        flow = self.block(body_statements(node.body), frame)
        return flow if flow.kind in ("return", "raise") else NEXT

    def _try(self, node: cst.Try, frame: Frame) -> Flow:
        flow = self.block(body_statements(node.body), frame)
        if flow.kind == "raise" and node.handlers:
            handler = node.handlers[0]
            if handler.name is not None:
                self._assign(handler.name.name, V(UNKNOWN), frame)
            flow = self.block(body_statements(handler.body), frame)
        elif flow.kind == "next" and node.orelse is not None:
            flow = self.block(body_statements(node.orelse.body), frame)
        if node.finalbody is not None:
            final = self.block(body_statements(node.finalbody.body), frame)
            if final.kind != "next":
                return final
        return flow

    def _augassign(self, node: cst.AugAssign, frame: Frame) -> Flow:
        value = self.expr(node.value, frame)
        if isinstance(node.target, cst.Name):
            current = self.expr(node.target, frame)
            op = _AUG_TO_BINARY.get(type(node.operator))
            result: object = UNKNOWN
            if op is not None and current.known and value.known:
                result = ops.binary(op, current.value, value.value)
            frame.assign(node.target.value, derived(result, current, value))
        return Flow("raise") if value.raised else NEXT

    def _assign(self, target: cst.BaseExpression, value: V, frame: Frame) -> None:
        if isinstance(target, cst.Name):
            frame.assign(target.value, value)
        elif isinstance(target, cst.Tuple | cst.List):
            items = value.value if value.known else None
            elements = target.elements
            if isinstance(items, tuple | list) and len(items) == len(elements):
                for element, item in zip(elements, items, strict=True):
                    self._assign(element.value, derived(item, value), frame)
            else:
                for element in elements:
                    self._assign(element.value, derived(UNKNOWN, value), frame)
        elif isinstance(target, cst.StarredElement):
            self._assign(target.value, derived(UNKNOWN, value), frame)

    def _bound_in(self, node: cst.CSTNode) -> frozenset[str]:
        key = id(node)
        found = self._bindings.get(key)
        if found is None:
            found = statements_bindings((node,))
            self._bindings[key] = found
        return found

    def test(self, node: cst.BaseExpression, frame: Frame) -> V:
        """Evaluate a branch test, recording it when it depends on the variable."""
        test = truthiness(self.expr(node, frame))
        if test.env and frame.depth == 0:
            self.seen.tests.append((id(node), test, _is_none_check(node)))
        return test

    def _tick(self) -> None:
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise _OutOfSteps

    # -- expressions (see expressions.py) -----------------------------------

    def expr(self, node: cst.BaseExpression, frame: Frame) -> V:
        self._tick()
        result = evaluate_expression(self, node, frame)
        if frame.depth == 0 and id(node) in self.chain_ids:
            self.seen.chain[id(node)] = result
        return result

    # -- reads and wrappers -------------------------------------------------

    def read(self, name: V, default: V, kind: str) -> V:
        """The value a read gives under this evaluator's setting."""
        self.seen.names.append(name)
        if not name.known or not isinstance(name.value, str):
            return derived(UNKNOWN, name, default)
        if name.value != self.knob:
            # Any other variable: taken as unset (its default); unknown where it must be set.
            if kind == "subscript":
                return V(UNKNOWN)
            return V(False) if kind == "contains" else default
        if kind == "contains":
            return V(self.value is not None, env=True)
        if self.value is not None:
            return V(self.value, env=True)
        if kind == "subscript":
            return V(RAISED, env=True)
        if self.seen.default is NOT_SEEN:
            self.seen.default = default.value
        return V(default.value, True, default.params)

    def call_wrapper(self, wrapper: Wrapper, node: cst.Call, frame: Frame, *, bound: bool) -> V:
        """Run ``wrapper`` with the call's arguments; its return value, tainted as due."""
        return calls.call_wrapper(self, wrapper, node, frame, bound=bound)

    def lookup_wrapper(self, func: cst.BaseExpression, frame: Frame) -> tuple[Wrapper, bool] | None:
        """The wrapper a call's callee names, and whether it is a bound method call."""
        return calls.lookup_wrapper(self.index, func, frame)

    def scope_names(self, function: cst.FunctionDef) -> frozenset[str]:
        """Every name local to ``function`` (cached per evaluation)."""
        key = id(function)
        found = self._bindings.get(key)
        if found is None:
            found = collect_bindings(function).assigned
            self._bindings[key] = found
        return found


def _is_none_check(node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return False
    target = node.comparisons[0]
    sides = (node.left, target.comparator)
    return any(isinstance(s, cst.Name) and s.value == "None" for s in sides)


_AUG_TO_BINARY: dict[type[cst.BaseAugOp], cst.BaseBinaryOp] = {
    cst.AddAssign: cst.Add(),
    cst.SubtractAssign: cst.Subtract(),
    cst.MultiplyAssign: cst.Multiply(),
    cst.ModuloAssign: cst.Modulo(),
    cst.BitOrAssign: cst.BitOr(),
    cst.BitAndAssign: cst.BitAnd(),
}


def _constant_flow(flow: Flow) -> Callable[[Evaluator, cst.CSTNode, Frame], Flow]:
    return lambda evaluator, node, frame: flow


_STATEMENTS: dict[type[cst.CSTNode], Callable[[Evaluator, Any, Frame], Flow]] = {
    cst.SimpleStatementLine: Evaluator._simple_line,
    cst.If: Evaluator._if,
    cst.Assign: Evaluator._assign_statement,
    cst.AnnAssign: Evaluator._annotated,
    cst.AugAssign: Evaluator._augassign,
    cst.Return: Evaluator._return,
    cst.Expr: Evaluator._expression_statement,
    cst.Assert: Evaluator._assert,
    cst.Raise: _constant_flow(Flow("raise")),
    cst.Break: _constant_flow(Flow("break")),
    cst.Continue: _constant_flow(Flow("continue")),
    cst.For: Evaluator._loop,
    cst.While: Evaluator._loop,
    cst.With: Evaluator._with,
    cst.Try: Evaluator._try,
    cst.FunctionDef: Evaluator._definition,
    cst.ClassDef: Evaluator._definition,
    cst.Pass: _constant_flow(NEXT),
    cst.Import: _constant_flow(NEXT),
    cst.ImportFrom: _constant_flow(NEXT),
    cst.Global: _constant_flow(NEXT),
    cst.Nonlocal: _constant_flow(NEXT),
}
