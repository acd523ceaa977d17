"""A small abstract interpreter: run a scope with one variable set to one value.

It executes the statements of a function (or the module-level statement of a
read) with concrete values where they are known and ``UNKNOWN`` elsewhere,
following ``if`` branches, local assignments, early returns, ``try`` handlers,
loops over known data, closures, and calls into wrappers and descriptor classes.
On the way it records what the verdict of one *site* (the read under study)
needs: the branch tests that depend on the value that site read, the value
returned, the value of each expression enclosing the site, the default written
at the site, and why the run could not be completed when it could not.

Code that does not lead to the site is not allowed to hide it: a branch, an
early exit or a short circuit that skips the site, decided by something other
than the variable, is taken the site's way (the site is judged as reached).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import libcst as cst

from scanner.interpret import calls
from scanner.interpret import operations as ops
from scanner.interpret.expressions import evaluate_expression, iterable_items
from scanner.interpret.frames import Frame, collect_bindings, statements_bindings
from scanner.interpret.objects import Closure, Instance
from scanner.interpret.probe import NO_PROBE, ModuleFacts, Probe
from scanner.interpret.spellings import ReadLog
from scanner.interpret.values import RAISED, UNKNOWN, V, derived, truthiness
from scanner.syntax.callee import find_wrapper
from scanner.syntax.index import Wrapper, WrapperIndex
from scanner.syntax.scopes import body_statements
from scanner.syntax.symbols import dotted
from scanner.syntax.walk import nodes

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

# One level of a run resumed inside ``with`` statements: a block, and where in it the
# statement that holds the site (or the next ``with`` in) is.
Level = tuple[Sequence[cst.CSTNode], int]


@dataclass(slots=True, kw_only=True)
class Observation:
    """What one run of a scope showed about the variable and the site's read (values
    that depend on the variable, read here or elsewhere in the scope, are ``env``)."""

    flow: Flow = field(default_factory=lambda: NEXT)
    tests: list[tuple[int, V, bool]] = field(default_factory=list)  # (node id, value, None-check)
    site_tests: set[int] = field(default_factory=set)  # tests the site's own value reached
    chain: dict[int, V] = field(default_factory=dict)
    default: object = NOT_SEEN  # what the site's read fell back to with the variable unset
    names: list[V] = field(default_factory=list)  # variable names the reads used
    complete: bool = True  # False when the step budget ran out
    reached: bool = False  # the site read the variable
    numeric: bool = False  # the value was used as a number (arithmetic, compared to 2, ...)
    path: bool = False  # the site's value was handed to a function that takes a path
    opaque: list[str] = field(default_factory=list)  # calls that took the value out of sight
    undecided: list[str] = field(default_factory=list)  # branches on the value left unknown
    limits: list[str] = field(default_factory=list)  # why a call could not be followed
    descriptor: object = NOT_SEEN  # a descriptor site: what its reader returned
    compared: set[str] = field(default_factory=set)  # strings the site's value was compared to
    comparisons: list[V] = field(default_factory=list)  # known comparisons of the site's value
    counted: bool = False  # the site's value went through int() or float(): a number
    # Tests that guard a raise: test id -> the outcome that lets the code go on (True for
    # ``assert t``, False for ``if t: raise ...``).
    guards: dict[int, bool] = field(default_factory=dict)
    # Tests not decided by the variable that were taken toward the site, as source text
    # (``args.deterministic_mode``; ``not (...)`` for an else branch).
    conditions: list[str] = field(default_factory=list)

    def copy(self, chain: dict[int, V] | None = None) -> Observation:
        """A copy with collections of its own (``chain``: a chain in place of this one's)."""
        return replace(
            self,
            chain=dict(self.chain) if chain is None else chain,
            tests=list(self.tests),
            site_tests=set(self.site_tests),
            names=list(self.names),
            opaque=list(self.opaque),
            undecided=list(self.undecided),
            limits=list(self.limits),
            compared=set(self.compared),
            comparisons=list(self.comparisons),
            guards=dict(self.guards),
            conditions=list(self.conditions),
        )


class Evaluator:
    """Evaluates expressions and statements for one (variable, value) setting."""

    def __init__(
        self, index: WrapperIndex, probe: Probe = NO_PROBE, module: ModuleFacts | None = None
    ) -> None:
        self.index = index
        self.probe = probe
        self.module = module if module is not None else ModuleFacts()
        self.seen = Observation()
        self.reads = ReadLog()  # what the run did with the set values it read
        self.factories: set[int] = set()  # calls of closure factories, already called through
        self.steps = 0
        self.asked = 0  # reads of the variable under study (which alone see the value probed)
        self._at_site = 0
        # ``A and B`` / ``A or B``: the truth of each side that depends on the site's value,
        # by the side's node id (see ``_operand_tests``).
        self.operands: dict[int, V] = {}

    # -- entry points ------------------------------------------------------

    def run(
        self,
        statements: Sequence[cst.CSTNode],
        frame: Frame,
        start: int = 0,
        stop: int | None = None,
    ) -> Observation:
        """Execute ``statements`` in ``frame`` and return what was observed; from ``start``
        (a run resumed there), up to ``stop`` (a run paused there: its flow is NEXT if it
        got there)."""
        try:
            self.seen.flow = self.block(statements, frame, start, stop)
        except _OutOfSteps:
            self.seen.complete = False
        return self.seen

    def enter(self, path: Sequence[Level], frame: Frame) -> tuple[int, Flow | None] | None:
        """Go into the ``with`` statements of ``path`` (``path[0]``'s statements before its
        stop already run): each one's items, then its body's statements before the next
        level's stop. The level whose statements ended the run and how (a flow), or the
        last level and None where the run got to the statement that holds the site; None
        when out of steps."""
        try:
            for depth in range(1, len(path)):
                outer, at = path[depth - 1]
                node = outer[at]
                assert isinstance(node, cst.With)
                self._tick()  # the ``with`` statement, as ``statement`` counts it
                self._enter_with(node, frame)
                statements, stop = path[depth]
                flow = self.block(statements, frame, 0, stop)
                if flow.kind != "next":
                    return depth, flow
        except _OutOfSteps:
            self.seen.complete = False
            return None
        return len(path) - 1, None

    def leave(
        self, path: Sequence[Level], frame: Frame, depth: int, flow: Flow | None = None
    ) -> Observation:
        """Finish a run inside ``path[depth]``: its statements from its stop (``flow``
        None), or after its statements ended with ``flow``; then each enclosing level
        after its ``with``, as ``block`` goes on after a statement."""
        try:
            if flow is None:
                statements, stop = path[depth]
                flow = self.block(statements, frame, stop)
            for statements, at in reversed(path[:depth]):
                if flow.kind == "next" or self._passes(statements, at, frame):
                    flow = self.block(statements, frame, at + 1)
            self.seen.flow = flow
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
            return V(value=UNKNOWN)

    def call(self, call: Callable[[], V]) -> V:
        """Run ``call`` (a call into the interpreter) within the step budget."""
        try:
            return call()
        except _OutOfSteps:
            self.seen.complete = False
            return V(value=UNKNOWN)

    # -- statements --------------------------------------------------------

    def block(
        self,
        statements: Sequence[cst.CSTNode],
        frame: Frame,
        start: int = 0,
        stop: int | None = None,
    ) -> Flow:
        for at in range(start, len(statements) if stop is None else stop):
            flow = self.statement(statements[at], frame)
            if flow.kind == "next":
                continue
            if self._passes(statements, at, frame):
                continue  # an exit the variable did not decide, before the site: go on to it
            return flow
        return NEXT

    def _passes(self, statements: Sequence[cst.CSTNode], at: int, frame: Frame) -> bool:
        return not frame.control and self._site_after(statements, at)

    def _site_after(self, statements: Sequence[cst.CSTNode], at: int) -> bool:
        return frame_has_site(self.probe.target, statements[at + 1 :]) and not self.seen.reached

    def statement(self, node: cst.CSTNode, frame: Frame) -> Flow:
        self._tick()
        handler = _STATEMENTS.get(type(node))
        if handler is not None:
            return handler(self, node, frame)
        # match, try*, anything newer: forget what it may bind.
        if id(node) in self.probe.target:
            self.seen.limits.append(f"the read is inside a {type(node).__name__} statement")
        frame.forget(self._bound_in(node))
        return NEXT

    def _simple_line(self, node: cst.SimpleStatementLine, frame: Frame) -> Flow:
        return self.block(node.body, frame)

    def _assign_statement(self, node: cst.Assign, frame: Frame) -> Flow:
        value = self.expr(node.value, frame)
        if value.raised:
            return Flow("raise")
        for target in node.targets:
            self.assign(target.target, value, frame)
        return NEXT

    def _annotated(self, node: cst.AnnAssign, frame: Frame) -> Flow:
        if node.value is not None:
            value = self.expr(node.value, frame)
            if value.raised:
                return Flow("raise")
            self.assign(node.target, value, frame)
        return NEXT

    def _return(self, node: cst.Return, frame: Frame) -> Flow:
        value = self.expr(node.value, frame) if node.value is not None else V(value=None)
        if value.raised:
            return Flow("raise")
        if frame.control:
            value = replace(value, env=True, site=value.site or frame.site_control)
        return Flow("return", value)

    def _expression_statement(self, node: cst.Expr, frame: Frame) -> Flow:
        if isinstance(node.value, cst.SimpleString | cst.ConcatenatedString):
            return NEXT  # a docstring
        return Flow("raise") if self.expr(node.value, frame).raised else NEXT

    def _assert(self, node: cst.Assert, frame: Frame) -> Flow:
        self.seen.guards[id(node.test)] = True
        test = self.test(node.test, frame)
        if node.msg is not None and id(node.msg) in self.probe.target:
            self.expr(node.msg, frame)
        return Flow("raise") if test.raised or test.value is False else NEXT

    def _raise(self, node: cst.Raise, frame: Frame) -> Flow:
        if node.exc is not None and id(node.exc) in self.probe.target:
            self.expr(node.exc, frame)  # the read is in the exception's message
        return Flow("raise")

    def _with(self, node: cst.With, frame: Frame) -> Flow:
        self._enter_with(node, frame)
        return self.block(body_statements(node.body), frame)

    def _enter_with(self, node: cst.With, frame: Frame) -> None:
        for item in node.items:
            self.expr(item.item, frame)
            if item.asname is not None:
                self.assign(item.asname.name, V(value=UNKNOWN), frame)

    def _definition(self, node: cst.FunctionDef | cst.ClassDef, frame: Frame) -> Flow:
        if isinstance(node, cst.FunctionDef):
            name = node.name.value
            qualname = f"{frame.qualname}.<locals>.{name}" if frame.qualname else name
            closure = Closure(node, frame, frame.symbols, qualname, frame.method_class)
            frame.assign(name, V(value=closure))
        else:
            frame.assign(node.name.value, V(value=UNKNOWN))
        return NEXT

    def _if(self, node: cst.If, frame: Frame) -> Flow:
        body = body_statements(node.body)
        if node.orelse is None and body and _raises(body[0]):
            self.seen.guards[id(node.test)] = False
        test = self.test(node.test, frame)
        if test.raised and not test.env:
            # Raised on what the scanner assumed (a parameter's default of None, say),
            # not on the variable: not known to happen.
            test = V(value=UNKNOWN)
        if test.raised:
            return Flow("raise")
        orelse = node.orelse
        else_body: Sequence[cst.CSTNode] = ()
        if isinstance(orelse, cst.If):
            else_body = (orelse,)
        elif isinstance(orelse, cst.Else):
            else_body = body_statements(orelse.body)
        in_body = id(node.body) in self.probe.target
        in_else = orelse is not None and id(orelse) in self.probe.target
        if test.known:
            if test.env:
                frame.control = True
                # Only the read's absence (``if value is None: return self.default``)
                # chooses a value that is the read's own: its default.
                frame.site_control = frame.site_control or (test.site and _is_none_check(node.test))
            take_body = bool(test.value)
            if not test.env and (in_body or in_else):
                take_body = in_body  # the site's branch, whatever else decides it
                self._toward(node.test, in_body)
            return self.block(body_statements(node.body) if take_body else else_body, frame)
        if in_body:
            self._toward(node.test, True)
            return self.block(body_statements(node.body), frame)
        if in_else:
            self._toward(node.test, False)
            return self.block(else_body, frame)
        if self.probe.explore:
            # Looking for the names a function can read: each branch may be the one.
            first = self.block(body_statements(node.body), frame)
            second = self.block(else_body, frame)
            frame.forget(self._bound_in(node))
            if first.kind == second.kind == "return":
                return first if first.value == second.value else Flow("return", V(value=UNKNOWN))
            return NEXT
        # Neither branch is known to run: forget what either could bind and go on.
        frame.forget(self._bound_in(node))
        return NEXT

    def _toward(self, test: cst.BaseExpression, holds: bool) -> None:
        """Record a test taken toward the site whatever its value."""
        code = " ".join(_EMPTY_MODULE.code_for_node(test).split())
        self.seen.conditions.append(code if holds else f"not ({code})")

    def _loop(self, node: cst.For | cst.While, frame: Frame) -> Flow:
        if isinstance(node, cst.While):
            self.test(node.test, frame)
            iterable = V(value=UNKNOWN)
        else:
            iterable = self.expr(node.iter, frame)
        inside = id(node) in self.probe.target
        items = iterable_items(iterable) if isinstance(node, cst.For) else None
        if inside and items == ():
            # A container known empty here (a class's ``buffers = {}``) is filled at run
            # time before the loop that reads the variable does anything: its body runs once.
            items = None
        if not inside and items is None and not (frame.depth or self.probe.explore):
            frame.forget(self._bound_in(node))
            return NEXT
        # Iterations over known data run (until one reaches the site, when it is inside);
        # a loop over anything else runs its body once, as the iteration that matters.
        if items is None:
            if isinstance(node, cst.For):
                self.assign(node.target, derived(UNKNOWN, iterable), frame)
            flow = self.block(body_statements(node.body), frame)
            return flow if flow.kind in ("return", "raise") else NEXT
        assert isinstance(node, cst.For)
        if inside:
            items = self._reaching(node.target, items, frame)
        for item in items:
            self.assign(node.target, V(value=item, env=iterable.env, params=iterable.params), frame)
            reached = self.seen.reached
            flow = self.block(body_statements(node.body), frame)
            if flow.kind in ("return", "raise"):
                return flow
            if inside and self.seen.reached and not reached:
                break
            if flow.kind == "break":
                break
        return NEXT

    def _reaching(
        self, target: cst.BaseExpression, items: tuple[object, ...], frame: Frame
    ) -> tuple[object, ...]:
        """Of a loop's items, the one that makes the site read the variable under study
        (``for name in NAMES: os.environ.get(name)``); all of them when that cannot be told
        from the site's name alone."""
        if self.probe.site_name is None or self.probe.knob is None:
            return items
        for item in items:
            self.assign(target, V(value=item), frame)
            name = self.expr(self.probe.site_name, frame)
            if name.known and name.value == self.probe.knob:
                return (item,)
        return items

    def _try(self, node: cst.Try, frame: Frame) -> Flow:
        flow = self.block(body_statements(node.body), frame)
        handler = next((h for h in node.handlers if id(h) in self.probe.target), None)
        if handler is None and flow.kind == "raise" and node.handlers:
            handler = node.handlers[0]
        if handler is not None and not (flow.kind == "return" and frame.control):
            if handler.name is not None:
                self.assign(handler.name.name, V(value=UNKNOWN), frame)
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
            if op is not None and current.plain and value.plain:
                result = ops.binary(op, current.value, value.value)
            frame.assign(node.target.value, derived(result, current, value))
        return Flow("raise") if value.raised else NEXT

    def assign(self, target: cst.BaseExpression, value: V, frame: Frame) -> None:
        """Bind ``target`` (a name, an attribute of an instance, a tuple) to ``value``."""
        if isinstance(target, cst.Name):
            frame.assign(target.value, value)
        elif isinstance(target, cst.Tuple | cst.List):
            items = value.value if value.plain else None
            elements = target.elements
            if isinstance(items, tuple | list) and len(items) == len(elements):
                for element, item in zip(elements, items, strict=True):
                    self.assign(element.value, derived(item, value), frame)
            else:
                for element in elements:
                    self.assign(element.value, derived(UNKNOWN, value), frame)
        elif isinstance(target, cst.StarredElement):
            self.assign(target.value, derived(UNKNOWN, value), frame)
        elif isinstance(target, cst.Attribute):
            owner = self.expr(target.value, frame)
            if owner.known and isinstance(owner.value, Instance):
                owner.value.attrs[target.attr.value] = value

    def _bound_in(self, node: cst.CSTNode) -> frozenset[str]:
        key = id(node)
        found = self.module.bindings.get(key)
        if found is None:
            found = statements_bindings((node,))
            self.module.bindings[key] = found
        return found

    def test(self, node: cst.BaseExpression, frame: Frame) -> V:
        """Evaluate a branch test, recording it when it depends on the site's value."""
        test = truthiness(self.expr(node, frame))
        if test.env and frame.depth == 0:
            if test.site:
                self.seen.site_tests.add(id(node))
            if test.known:
                self.seen.tests.append((id(node), test, _is_none_check(node)))
            elif test.site:
                self.seen.undecided.append(_described(node))
            if isinstance(node, cst.BooleanOperation):
                self._operand_tests(node)
        return test

    def _operand_tests(self, node: cst.BooleanOperation) -> None:
        """Record each side of ``A and B`` that the site's value decides as a test of its
        own: ``if not flag and pkg.is_installed:`` tests ``flag`` as a switch even where
        the other side cannot be known (the whole test is then unknown)."""
        for side in (node.left, node.right):
            if isinstance(side, cst.BooleanOperation) and type(side.operator) is type(
                node.operator
            ):
                self._operand_tests(side)
                continue
            truth = self.operands.pop(id(side), None)  # this test's, not a former one's
            if truth is not None and truth.site and truth.known:
                self.seen.site_tests.add(id(side))
                self.seen.tests.append((id(side), truth, _is_none_check(side)))

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _OutOfSteps

    # -- expressions (see expressions.py) -----------------------------------

    def expr(self, node: cst.BaseExpression, frame: Frame) -> V:
        self._tick()
        if id(node) == self.probe.site:
            self._at_site += 1
            try:
                result = evaluate_expression(self, node, frame)
            finally:
                self._at_site -= 1
        else:
            result = evaluate_expression(self, node, frame)
        if frame.depth == 0 and id(node) in self.probe.chain:
            self.seen.chain[id(node)] = result
        return result

    # -- reads and names ----------------------------------------------------

    def read(
        self,
        name: V,
        default: V,
        kind: str,
        *,
        convert: Callable[[str], object] | None = None,
        node: cst.CSTNode | None = None,
    ) -> V:
        """The value a read gives under this evaluator's setting (``convert``: what a typed
        accessor makes of a set value; ``node``: the read's expression, whose value this is)."""
        self.seen.names.append(name)
        if not name.known or not isinstance(name.value, str):
            return derived(UNKNOWN, name, default)
        if name.value != self.probe.knob:
            # Any other variable: taken as unset (its default); unknown where it must be set.
            if kind == "subscript":
                return V(value=UNKNOWN)
            if kind == "contains":
                return V(value=False, assumed=True)
            return replace(default, assumed=True)
        self.asked += 1
        at_site = self._at_site > 0
        if at_site:
            self.seen.reached = True
        if kind == "contains":
            return V(value=self.probe.value is not None, env=True, site=at_site)
        if self.probe.value is not None:
            result = convert(self.probe.value) if convert is not None else self.probe.value
            given = V(value=result, env=True, site=at_site)
            self.reads.read(node if convert is None else None, given)
            return given
        if kind == "subscript":
            return V(value=RAISED, env=True, site=at_site)
        if at_site and self.seen.default is NOT_SEEN:
            self.seen.default = default.value
        return V(value=default.value, env=True, params=default.params, site=at_site)

    def global_value(self, name: str, frame: Frame) -> V:
        """A module-level name: a probed override, a constant, an imported constant."""
        override = self.probe.overrides.get(name)
        if override is not None:
            return override
        constants = frame.symbols.constants
        if name in constants:
            return V(value=constants[name])
        imported = frame.symbols.imports.get(name)
        if imported is not None and not imported.startswith("os"):
            value = self.imported_constant(imported)
            if value is not None:
                return V(value=value)
        return V(value=UNKNOWN)

    def imported_constant(self, qualname: str) -> object | None:
        """The value of a constant another module of the tree defines, if known."""
        if self.module.loader is None:
            return None
        return self.module.loader(qualname)

    def class_constant(self, method_class: str | None, attr: str, frame: Frame) -> V | None:
        """``self.X`` / ``cls.X`` in a method: a plain constant of the method's class."""
        if method_class is None:
            return None
        attrs = frame.symbols.class_constants.get(method_class.rsplit(".", 1)[-1])
        if attrs is None or attr not in attrs:
            return None
        return V(value=attrs[attr])

    def instance_attribute(self, instance: Instance, attr: str, frame: Frame) -> V:
        """An attribute of an instance: set by its methods, or a class-level constant."""
        found = instance.attrs.get(attr)
        if found is not None:
            return found
        attrs = instance.model.symbols.class_constants
        for owner in instance.model.mro():
            if attr in attrs.get(owner, {}):
                return V(value=attrs[owner][attr])
        value = instance.model.attribute(attr)
        if value is not None:
            class_frame = Frame(instance.model.symbols, {}, depth=frame.depth)
            return self.expr(value, class_frame)
        return V(value=UNKNOWN)

    # -- what the verdict needs to know ------------------------------------

    def note_numeric(self, left: V, right: V, *, comparison: bool) -> None:
        """The site's value used as a number: in arithmetic, or compared with a number
        other than 0 and 1 (a size, a count, a rank), which makes it a value knob. Also
        notes the strings the site's value is compared with."""
        for this, other in ((left, right), (right, left)):
            if comparison and this.site and isinstance(other.value, str):
                self.seen.compared.add(other.value)
            if not this.site or not _is_number(this.value):
                continue
            if not comparison or (_is_number(other.value) and other.value not in (0, 1)):
                self.seen.numeric = True

    def note_passed(self, values: Sequence[V]) -> None:
        """Values handed to code the evaluator does not run, or formatted into text: the
        site's number passed on this way is a value (a thread count, a port)."""
        if any(v.site and _is_number(v.value) for v in values):
            self.seen.numeric = True

    def note_path(self, values: Sequence[V]) -> None:
        """Values handed to a function that takes a path (``os.path.isfile``, ``open``): the
        site's value passed this way is a location, a value knob."""
        if any(v.site for v in values):
            self.seen.path = True

    def note_opaque(self, callee: str) -> None:
        if self._at_site == 0:
            self.seen.opaque.append(callee)

    def note_limit(self, reason: str) -> None:
        self.seen.limits.append(reason)

    def attribute_of(self, node: cst.Call) -> str | None:
        """The class-body attribute a call's value is assigned to (``X = EnvBool(True)``)."""
        return self.module.attributes.get(id(node))

    def descriptor_value(self, node: cst.Call, value: V) -> None:
        """A descriptor's construction: the reader's value is what the site gives."""
        if id(node) == self.probe.site and self.seen.descriptor is NOT_SEEN:
            self.seen.descriptor = value.value

    # -- wrappers -----------------------------------------------------------

    def call_wrapper(self, wrapper: Wrapper, node: cst.Call, frame: Frame, *, bound: bool) -> V:
        """Run ``wrapper`` with the call's arguments; its value, tainted as due."""
        return calls.call_wrapper(self, wrapper, node, frame, bound=bound)

    def lookup_wrapper(
        self, func: cst.BaseExpression, frame: Frame, qualified: str | None
    ) -> tuple[Wrapper, bool] | None:
        """The wrapper a call's callee names, and whether it is a bound method call."""
        if not self.index.wrappers:
            return None
        if qualified is None and isinstance(func, cst.Name) and frame.lookup(func.value):
            return None  # a local value (a closure is called as such)
        return find_wrapper(self.index, func, frame.method_class, qualified, symbols=frame.symbols)

    def scope_names(self, function: cst.FunctionDef | cst.Lambda) -> frozenset[str]:
        """Every name local to ``function`` (cached per evaluation)."""
        key = id(function)
        found = self.module.bindings.get(key)
        if found is None:
            found = collect_bindings(function).assigned
            self.module.bindings[key] = found
        return found


def frame_has_site(target: frozenset[int], statements: Sequence[cst.CSTNode]) -> bool:
    """Whether one of ``statements`` holds the site."""
    return any(id(s) in target for s in statements)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_none_check(node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return False
    target = node.comparisons[0]
    sides = (node.left, target.comparator)
    return any(isinstance(s, cst.Name) and s.value == "None" for s in sides)


def _described(node: cst.BaseExpression) -> str:
    """The calls in a branch test, to name what hid the value (``str2bool()``); else the
    test itself."""
    names = [dotted(n.func) for n in nodes(node) if isinstance(n, cst.Call)]
    names = [n for n in names if n and not n.endswith(_READ_SPELLINGS)]
    if names:
        return ", ".join(f"{n}()" for n in dict.fromkeys(names))
    code = " ".join(_EMPTY_MODULE.code_for_node(node).split())
    return f"`{code if len(code) <= 60 else code[:57] + '...'}`"


_READ_SPELLINGS = ("environ.get", "getenv")  # the read itself, not what hides its value
_EMPTY_MODULE = cst.Module([])
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
    cst.Raise: Evaluator._raise,
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


def _raises(statement: cst.CSTNode) -> bool:
    """Whether a statement is ``raise ...`` (alone on its line)."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Raise)
    )
