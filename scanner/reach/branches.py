"""The branches a variable's value decides, found with ``ast`` from a site's decisions.

A test the probes saw (``scanner.interpret.decisions``) is found where it was placed, and
its two sides are the branches: an ``if``'s body and its ``else`` (or, when the body
always leaves, the statements after the ``if``), a ternary's two values, a ``while``'s
body. A value that leaves the site's function (returned, or stored in a module name or an
attribute) is followed to the tests that use it: calls of the function, loads of the name
(in its module and in the modules that import it), ``self.`` loads of the attribute in
its class; a caller that returns the value on, or stores it, carries it one step further.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from scanner.model import Decision, DecisionKind, Outcome, Site
from scanner.reach.inductor import inductor_option, option_taken
from scanner.reach.marks import Mark, MarkKind
from scanner.reach.modules import Module, Tree
from scanner.reach.truth import IsCarrier, truths, value_of
from scanner.reach.words import Words

MAX_CARRY = 3  # returns and stores a carried value is followed through
MAX_CONSUMERS = 64  # tests that use one carried value
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)
# Per probed value, whether the branch runs under each choice of the rest of its test
# (the same choices, in the same order, for every value).
Taken = Mapping[str | None, tuple[bool, ...]]


@dataclass(frozen=True, slots=True, eq=False)
class Branch:
    """Code that runs, or not, as the variable's value decides."""

    module: Module
    code: tuple[ast.stmt, ...] | ast.expr  # statements, or a ternary's value
    owner: str | None  # the class of the method it sits in
    taken: Taken
    test: ast.expr  # the test that decides it
    holds: bool  # whether it runs when the test holds
    # For a choice (a string the test compares): the carrier in the test, to weigh any
    # other string a choice can be; a check's side (it raises) only names strings.
    carrier: IsCarrier | None = None
    check: bool = False
    raises: bool = False  # the side of a check that stops the run (raise, a failed assert)
    # A registered function (``@register(condition=f)``): when it does not run, the code
    # it would have replaced runs, so leaving it is not leaving its work undone.
    replaces: bool = False
    # What the branch reaches besides its code: a value handed on as ``deterministic=``.
    marks: tuple[Mark, ...] = ()
    _more: dict[str, tuple[bool, ...] | None] = field(default_factory=dict)

    def runs(self, value: str | None) -> tuple[bool, ...] | None:
        """Whether the branch runs under ``value``, for each choice of the rest of its test
        (None: not known)."""
        known = self.taken.get(value)
        if known is not None or value is None or self.carrier is None:
            return known
        if value not in self._more:
            found = truths(self.test, self.carrier, value, _names(self.module, self.test))
            self._more[value] = (
                found if found is None or self.holds else tuple(not t for t in found)
            )
        return self._more[value]

    def strings(self) -> list[str]:
        """The strings the branch's test compares with."""
        return _compared(self.module, self.test)

    @property
    def where(self) -> str:
        return f"{self.module.rel}:{self.test.lineno}"

    def described(self) -> str:
        test = self.test
        holds = self.holds
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, holds = test.operand, not holds
        text = ast.unparse(test)
        shown = text if len(text) <= 60 else text[:57] + "..."
        if not holds:
            shown = f"not ({shown})" if " " in shown else f"not {shown}"
        if self.marks:
            return f"`{shown}` at {self.where}"
        return f"the branch of `{shown}` at {self.where}"


class Carriers:
    """The carried values of a scan, and the modules that can use them: the module that
    defines one, and the modules whose text names it beside its module (as an import of
    it, or of its module, must). The tree is searched once, for all of them."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._mentions: dict[tuple[str, str], list[str]] = {}
        self._wanted: set[tuple[str, str]] = set()
        self._words: Words | None = None  # read at the first search

    def want(self, carried: Iterable[tuple[str, str]]) -> None:
        """``(module, name)`` pairs to look for: all of them are searched for together
        the next time one that was not searched yet is asked for."""
        self._wanted.update(c for c in carried if c not in self._mentions)

    def modules_naming(self, module: Module | None, name: str) -> list[str]:
        """The modules that may use ``module``'s ``name``: ``module`` itself, and those
        whose text holds ``name`` and the last part of ``module``'s name (with no
        module, a config key: every module whose text holds ``name``)."""
        key = (module.name if module is not None else "", name)
        self.tree.asked(*key)
        if key not in self._mentions:
            self._wanted.add(key)
            self._search()
        found = self._mentions[key]
        if module is None:
            return found
        return [module.rel, *(rel for rel in found if rel != module.rel)]

    def _search(self) -> None:
        if self._words is None:
            self._words = Words(self.tree)
        for key in sorted(self._wanted):
            home, name = key[0].rsplit(".", 1)[-1].encode(), key[1].encode()
            words = [w for w in (home, name) if w]
            if all(Words.is_word(w) for w in words):
                candidates = self._words.holding(*words)
            else:  # a dotted key: every module, read
                candidates = list(self.tree.rels())
            found = self._mentions[key] = []
            for rel in candidates:
                data = self.tree.data(rel)
                if (
                    data is not None
                    and name in data
                    and home in data
                    and (_imports(data, home, name) if key[0] else _read_as_key(data, name))
                ):
                    found.append(rel)
        self._wanted.clear()


def _imports(data: bytes, home: bytes, name: bytes) -> bool:
    """Whether a module's text can name ``name`` of the module ``home`` (its last part):
    the dotted ``home.name``, or a line naming ``home`` that imports (``from pkg.home
    import name``, ``import pkg.home as h``, ``import_module("pkg.home")``, a name in the
    parentheses of ``from pkg import (``)."""
    if home + b"." + name in data:
        return True
    at = data.find(home)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        line = data[start : end if end >= 0 else len(data)].lstrip()
        if line.startswith((b"from ", b"import ")) or b"import_module(" in line:
            return True
        statement = data.rfind(b"\nfrom ", 0, at)
        if statement < 0 and data.startswith(b"from "):
            statement = 0
        if statement >= 0 and _in_parentheses(data[statement:start]):
            return True
        at = data.find(home, at + len(home))
    return False


def _in_parentheses(statement: bytes) -> bool:
    """Whether the lines of a ``from`` statement so far leave its import list open."""
    opened = statement.find(b"import (")
    return opened >= 0 and b")" not in statement[opened:]


def _read_as_key(data: bytes, key: bytes) -> bool:
    """Whether a module's text can read config key ``key`` (``x.key``, ``"key"``)."""
    return re.search(rb"[.'\"]" + re.escape(key) + rb"(?![A-Za-z0-9_])", data) is not None


def carried_names(site: Site, module_name: str) -> list[tuple[str, str]]:
    """The ``(module, name)`` a site's decisions carry its value under, to search for."""
    names = []
    for decision in site.decisions:
        if decision.kind is DecisionKind.RETURN and decision.name and "<" not in decision.name:
            names.append((module_name, decision.name.split(".", 1)[0]))
        elif decision.kind is DecisionKind.STORE and decision.store == "global" and decision.name:
            names.append((module_name, decision.name))
    return names


def branches(site: Site, tree: Tree, carriers: Carriers) -> list[Branch]:
    """Every branch the site's value decides."""
    if not site.decisions:
        return []  # nothing decided: the module need not be parsed
    module = tree.module_at(site.path)
    if module is None:
        return []
    found: list[Branch] = []
    for decision in site.decisions:
        if decision.kind is DecisionKind.READ:
            read = _read_node(module, site)
            # Where the probes followed what the function returns, its callers are theirs.
            returns = any(d.kind is DecisionKind.RETURN for d in site.decisions)
            depth = MAX_CARRY if returns else 0
            if read is not None:
                found.extend(uses(module, read, decision.outcomes, tree, carriers, depth))
        elif decision.kind is DecisionKind.TEST:
            test = _find_test(module, decision, site)
            if test is not None:
                taken = _taken_by_outcomes(decision.outcomes)
                found.extend(_sides(module, test, taken))
        elif decision.kind is DecisionKind.RETURN and decision.name and "<" not in decision.name:
            carried = module.qualified(decision.name)
            found.extend(_returned(module, carried, decision.outcomes, tree, carriers, 0))
        elif decision.kind is DecisionKind.STORE and decision.name:
            found.extend(_stored(module, site, decision, tree, carriers, 0))
    return found


def _taken_by_outcomes(
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> dict[str | None, tuple[bool, ...]]:
    return {value: (bool(outcome),) for value, outcome in outcomes}


def _find_test(module: Module, decision: Decision, site: Site) -> ast.expr | None:
    """The test a decision was placed at: the innermost one around the read, or the first
    of that text in the function whose ``def`` is on the decision's line."""
    if not decision.holds_read:
        function = module.function_at(decision.line)
        if function is None or decision.name is None:
            return None
        return next(
            (
                node.test
                for node in ast.walk(function)
                if isinstance(node, _TESTED) and ast.unparse(node.test) == decision.name
            ),
            None,
        )
    best: ast.expr | None = None
    for node in module.tests_near(site.line):
        test = node.test
        if _spans(module, test, site.line, site.column) and (
            best is None
            or _spans(module, best, test.lineno, module.column(test.lineno, test.col_offset))
        ):
            best = test
    return best


def _spans(module: Module, node: ast.expr, line: int, column: int) -> bool:
    end_line = node.end_lineno or node.lineno
    start = (node.lineno, module.column(node.lineno, node.col_offset))
    end = (end_line, module.column(end_line, node.end_col_offset or 0))
    return start <= (line, column) < end


def _sides(
    module: Module, test: ast.expr, taken: Taken, carrier: IsCarrier | None = None
) -> Iterator[Branch]:
    """The two sides of the statement or ternary ``test`` decides (``carrier``: a choice's).
    A check (a side that raises) is no choice between two runs: its sides are marked, and
    only the strings it names are used."""
    owner_node = module.parent(test)
    owner = module.owner_class(test)
    runs = dict(taken)
    skips = {value: tuple(not ran for ran in choices) for value, choices in taken.items()}
    if isinstance(owner_node, ast.IfExp):
        yield Branch(module, owner_node.body, owner, runs, test, True, carrier)
        yield Branch(module, owner_node.orelse, owner, skips, test, False, carrier)
    elif isinstance(owner_node, ast.If):
        body, orelse = owner_node.body, owner_node.orelse
        check = _raises(body) or _raises(orelse)
        yield Branch(
            module, tuple(body), owner, runs, test, True, carrier, check, raises=_raises(body)
        )
        other = tuple(orelse)
        if not other and _leaves(body):
            other = module.after(owner_node)
        yield Branch(
            module, other, owner, skips, test, False, carrier, check, raises=_raises(orelse)
        )
    elif isinstance(owner_node, ast.While):
        yield Branch(module, tuple(owner_node.body), owner, runs, test, True, carrier)
    elif isinstance(owner_node, ast.Assert):  # a failed assert stops the run
        yield Branch(module, (), owner, skips, test, False, carrier, True, raises=True)


def _raises(body: Sequence[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise)


def _leaves(body: Sequence[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], _EXITS)


def _returned(
    home: Module,
    carried: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """The branches decided by calls of the function ``carried`` (defined in ``home``)
    returns the value of."""
    short = carried.rsplit(".", 1)[-1]
    count = 0
    for rel in carriers.modules_naming(home, carried[len(home.name) + 1 :].split(".", 1)[0]):
        module = tree.module(rel)
        if module is None:
            continue
        aliases = {short, *(local for local, target in module.imports.items() if target == carried)}
        for branch in _conditioned(module, carried, aliases, outcomes):
            count += 1
            yield branch
        for call in (c for alias in sorted(aliases) for c in module.calls_named(alias)):
            owner = module.owner_class(call)
            if module.resolve(call.func, owner) != carried:
                continue
            for branch in uses(module, call, outcomes, tree, carriers, depth):
                count += 1
                if count > MAX_CONSUMERS:
                    return
                yield branch


# Keywords a registering decorator takes its predicate under: the decorated function runs
# when the predicate holds (Primus's ``@register_patch(..., condition=pred)``).
CONDITION_KEYWORDS: Final = frozenset({"condition", "when", "predicate", "enabled_if"})


def _conditioned(
    module: Module,
    carried: str,
    aliases: Iterable[str],
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> Iterator[Branch]:
    """The functions registered under the predicate ``carried`` (``@register(condition=f)``):
    each runs when ``f`` holds."""
    for alias in sorted(aliases):
        for load in module.loads_named(alias):
            keyword = module.parent(load)
            call = module.parent(keyword) if isinstance(keyword, ast.keyword) else None
            function = module.parent(call) if isinstance(call, ast.Call) else None
            if (
                not isinstance(keyword, ast.keyword)
                or keyword.arg not in CONDITION_KEYWORDS
                or not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
                or call not in function.decorator_list
                or module.resolve(load) != carried
            ):
                continue
            taken = {
                value: (found,)
                for value, outcome in outcomes
                if (found := _truth(outcome)) is not None
            }
            if None in taken and len(set(taken.values())) > 1:
                owner = module.owner_class(function)
                yield Branch(module, tuple(function.body), owner, taken, load, True, replaces=True)


def _truth(outcome: Outcome) -> bool | None:
    """Whether a returned value holds; None when the probes could not say."""
    return None if outcome is None else bool(outcome)


def _stored(
    module: Module, site: Site, decision: Decision, tree: Tree, carriers: Carriers, depth: int
) -> Iterator[Branch]:
    """The branches decided by loads of the module name or attribute the value is stored in."""
    name = decision.name
    assert name is not None
    if decision.store == "local":
        function = module.function_node_around_line(site.line)
        if function is not None:
            yield from _local_tests(
                module, function, name, decision.outcomes, tree, carriers, depth
            )
        return
    if decision.store == "attr":
        owner = module.owner_class_at(site.line)
        for node in module.attribute_loads(name):
            if module.owner_class(node) == owner and owner is not None:
                yield from uses(module, node, decision.outcomes, tree, carriers, depth)
        return
    if decision.store != "global":
        return
    # A class body's attribute (``class auto_chunker: enable = ...``) is read as
    # ``auto_chunker.enable``: the modules that name the class are those to search.
    classes = [
        s.name for s in module.locate.statements_at(site.line) if isinstance(s, ast.ClassDef)
    ]
    if classes and module.function_node_around_line(site.line) is None:
        carried, searched = module.qualified(f"{'.'.join(classes)}.{name}"), classes[0]
    else:
        carried, searched = module.qualified(name), name
    for rel in carriers.modules_naming(module, searched):
        user = tree.module(rel)
        if user is None:
            continue
        for load in user.loads_named(name):
            if user.resolve(load, user.owner_class(load)) == carried:
                yield from uses(user, load, decision.outcomes, tree, carriers, depth)


def uses(
    module: Module,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    *,
    choices: bool = False,
) -> Iterator[Branch]:
    """The branches a use of the carried value decides: the test it takes part in, or,
    when the value (or a value computed from it and literals alone, ``str(x or "eager")``)
    is returned or bound to a local or an attribute, the tests further on. ``choices``: the
    value is a string the code compares with others, each of which is weighed too."""
    node: ast.AST = carrier
    for outer in module.ancestors(carrier):
        if isinstance(outer, _TESTED) and outer.test is node:
            yield from _decided(module, outer.test, _is(carrier), outcomes, choices=choices)
            if isinstance(outer, ast.If) and depth < MAX_CARRY:
                yield from _early_return(module, outer, carrier, outcomes, tree, carriers, depth)
            if isinstance(outer, ast.If):
                yield from _flag_set(module, outer, carrier, outcomes, tree, carriers, depth)
            return
        if node is not carrier and isinstance(
            outer, ast.Return | ast.Assign | ast.AnnAssign | ast.keyword
        ):
            deciding = _deciding(module, node, carrier, outcomes)
            if deciding is None:
                return
            carrier, outcomes = deciding
        if node is carrier and isinstance(outer, ast.keyword | ast.Assign):
            flag = _handed_as_flag(module, outer, carrier, outcomes)
            if flag is not None:
                yield flag
                return
            option = inductor_option(module, outer) if isinstance(outer, ast.Assign) else None
            if option is not None and outer.value is carrier:
                owner = module.owner_class(carrier)
                taken = option_taken(outcomes)
                # false, Inductor runs its default choice in the tuned one's place
                yield Branch(
                    module, (), owner, taken, carrier, True, replaces=True, marks=(option,)
                )
                return
        if node is carrier and isinstance(outer, ast.Return):
            if depth >= MAX_CARRY:
                return
            function = module.function_around(outer)
            if function is not None:
                carriers.want([(module.name, function[len(module.name) + 1 :].split(".", 1)[0])])
                yield from _returned(module, function, outcomes, tree, carriers, depth + 1)
            return
        if node is carrier and isinstance(outer, ast.Assign | ast.AnnAssign):
            if _assigns(outer, carrier):
                yield from _bound(module, outer, outcomes, tree, carriers, depth, choices)
            return
        if node is carrier and isinstance(outer, ast.Call | ast.keyword):
            yield from _handed(module, outer, carrier, outcomes, tree, carriers, depth, choices)
        if not isinstance(outer, ast.expr):
            return
        if node is carrier:
            computed = _computed(outer, carrier, outcomes)
            if computed is not None:
                carrier, outcomes = outer, computed
        node = outer


def _computed(
    outer: ast.expr, carrier: ast.expr, outcomes: Sequence[tuple[str | None, Outcome]]
) -> list[tuple[str | None, Outcome]] | None:
    """The value of ``outer`` under each outcome of the carrier, where it has one
    (``int(x)``, ``str(x or "eager")``): values it raises on (``int("true")``) are values no
    run has, and are left out; None when the value with the variable unset is not known."""
    computed: list[tuple[str | None, Outcome]] = []
    for value, outcome in outcomes:
        known, result = value_of(outer, _is(carrier), outcome)
        if known and isinstance(result, _PLAIN):
            computed.append((value, result))
        elif value is None:
            return None
    return computed


_PLAIN = (str, bool, int, float, type(None))


# Keywords and keys that make the call they are handed to run its deterministic kernels
# (flash-attn's ``deterministic=True``, transformers' ``flash_kwargs["deterministic"]``).
DETERMINISTIC_FLAGS = frozenset({"deterministic"})


def _handed_as_flag(
    module: Module,
    outer: ast.keyword | ast.Assign,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> Branch | None:
    """The carried value handed on as ``deterministic=`` (a keyword, or a key of the kwargs
    a call gets): a branch with no code of its own that reaches a deterministic mode where
    the value is true."""
    if isinstance(outer, ast.keyword):
        key = outer.arg
    else:
        target = outer.targets[0] if len(outer.targets) == 1 else None
        key = None
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
            key = target.slice.value if isinstance(target.slice.value, str) else None
    if key not in DETERMINISTIC_FLAGS:
        return None
    line = getattr(outer, "lineno", None) or carrier.lineno
    taken = {value: (bool(outcome),) for value, outcome in outcomes}
    mark = Mark(MarkKind.DETERMINISM, f"{key}= handed on", module.rel, line)
    return Branch(module, (), module.owner_class(carrier), taken, carrier, True, marks=(mark,))


def _early_return(
    module: Module,
    statement: ast.If,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """``if not envs.X: return False`` in a predicate: the function returns False where the
    test holds, and what the rest decides elsewhere; its callers' tests decide with that."""
    body = statement.body
    if statement.orelse or not isinstance(body[-1], ast.Return):
        return
    if any(isinstance(n, ast.Return | ast.Raise) for s in body[:-1] for n in ast.walk(s)):
        return
    returned = _constant(body[-1].value)
    if not isinstance(returned, bool):
        return
    deciding = _deciding(module, statement.test, carrier, outcomes)
    function = module.function_around(statement)
    if deciding is None or function is None:
        return
    carried = [(v, returned if held else not returned) for v, held in deciding[1]]
    carriers.want([(module.name, function[len(module.name) + 1 :].split(".", 1)[0])])
    yield from _returned(module, function, carried, tree, carriers, depth + 1)


def _flag_set(
    module: Module,
    statement: ast.If,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
) -> Iterator[Branch]:
    """``if x or envs.X: flag = False`` / ``else: flag = ...``: a local one side sets to a
    constant, tested further on, carries the decision (true or false as that side runs)."""
    deciding = _deciding(module, statement.test, carrier, outcomes)
    function = module.function_node_around(statement)
    if deciding is None or function is None:
        return
    end = statement.end_lineno or statement.lineno
    for side, holds in ((statement.body, True), (statement.orelse, False)):
        for name, value in _constants_set(side).items():
            carried = [(v, value if held is holds else not value) for v, held in deciding[1]]
            yield from _local_tests(
                module, function, name, carried, tree, carriers, depth, after=end
            )


def _named(name: str) -> IsCarrier:
    """The test for a load of the local ``name``."""
    return lambda node: isinstance(node, ast.Name) and node.id == name


def _constants_set(body: Sequence[ast.stmt]) -> dict[str, bool]:
    """The locals a block's own statements set to True or False."""
    found: dict[str, bool] = {}
    for statement in body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, bool)
        ):
            found[statement.targets[0].id] = statement.value.value
    return found


def _constant(node: ast.expr | None) -> object:
    """The constant returned: ``False``, or the first item of ``return False, "why"``."""
    if isinstance(node, ast.Tuple) and node.elts:
        node = node.elts[0]
    return node.value if isinstance(node, ast.Constant) else None


def _deciding(
    module: Module,
    node: ast.AST,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> tuple[ast.expr, list[tuple[str | None, Outcome]]] | None:
    """A boolean expression the carrier decides (``envs.X and has_kernel()``), returned or
    stored: its truth under each outcome, for the choice of the rest of it that lets the
    carrier decide (the rest as a caller's test would find it when it matters)."""
    if isinstance(node, ast.Call) and _bool_of(node):
        tested = node.args[0]  # bool(x): as x holds
    elif isinstance(node, ast.BoolOp | ast.UnaryOp | ast.Compare | ast.IfExp):
        tested = node
    else:
        return None
    names = _names(module, node)
    found = [(v, truths(tested, _is(carrier), o, names)) for v, o in outcomes]
    if any(v is None and t is None for v, t in found):
        return None  # the value with the variable unset is not known
    found = [(v, t) for v, t in found if t is not None]
    rows = [t for _, t in found if t is not None]
    if not rows:
        return None
    deciding = next((i for i in range(len(rows[0])) if len({r[i] for r in rows}) > 1), None)
    if deciding is None:
        return None
    return node, [(v, t[deciding]) for v, t in found if t is not None]


def _bool_of(node: ast.Call) -> bool:
    """Whether ``node`` is ``bool(x)`` of one expression (``return bool(envs.X and y)``)."""
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "bool"
        and len(node.args) == 1
        and not node.keywords
    )


def _is(carrier: ast.expr) -> IsCarrier:
    """The test for the carrier node itself."""
    return lambda node: node is carrier


def _assigns(statement: ast.Assign | ast.AnnAssign, value: ast.expr) -> bool:
    """Whether ``statement`` binds ``value`` to one target (``x = v``, ``x: T = v``)."""
    if isinstance(statement, ast.Assign):
        return statement.value is value and len(statement.targets) == 1
    return isinstance(statement, ast.AnnAssign) and statement.value is value


def _bound(
    module: Module,
    statement: ast.Assign | ast.AnnAssign,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
) -> Iterator[Branch]:
    """A carried value bound to a local (its tests in the function) or to ``self.X`` (the
    uses of ``self.X`` in the class's methods, followed as the value itself)."""
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
    if isinstance(target, ast.Name):
        function = module.function_node_around(statement)
        if function is not None:
            yield from _local_tests(
                module, function, target.id, outcomes, tree, carriers, depth, choices=choices
            )
    elif (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        owner = module.owner_class(statement)
        if owner is None or depth >= MAX_CARRY + 2:
            return
        for load in module.attribute_loads(target.attr):
            if module.owner_class(load) == owner:
                yield from uses(module, load, outcomes, tree, carriers, depth + 1, choices=choices)


def _local_tests(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    *,
    choices: bool = False,
    after: int = 0,
) -> Iterator[Branch]:
    """The tests of the local ``name`` in ``function`` (after line ``after``), which holds
    the carried value, and, where it is handed to a function of the tree as an argument
    (``decode(..., enable_lean=enable_lean)``), the tests of that parameter there."""
    for test in module.tests_naming(function).get(name, ()):
        if test.lineno > after:
            yield from _decided(module, test, _named(name), outcomes, choices=choices)
    for returned in _returns_naming(function, name):
        if returned.lineno > after:
            yield from uses(module, returned, outcomes, tree, carriers, depth, choices=choices)
    if depth >= MAX_CARRY + 2:
        return
    yield from _kept(module, function, name, outcomes, tree, carriers, depth, choices, after)
    for call, key in module.arguments_passing(function).get(name, ()):
        if call.lineno > after:
            yield from _in_callee(module, call, key, outcomes, tree, carriers, depth + 1, choices)


def _handed(
    module: Module,
    outer: ast.Call | ast.keyword,
    carrier: ast.expr,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
) -> Iterator[Branch]:
    """The carried value handed to a function of the tree as an argument
    (``resolve_kda_backend(self.backend_name)``, ``build(kind=self.kind)``): the tests of
    that parameter there."""
    if depth >= MAX_CARRY + 2:
        return
    key: str | int | None
    if isinstance(outer, ast.keyword):
        call = module.locate.parent(outer)
        key = outer.arg
    else:
        call = outer
        key = next((i for i, a in enumerate(outer.args) if a is carrier), None)
    if not isinstance(call, ast.Call) or key is None:
        return
    if any(isinstance(a, ast.Starred) for a in call.args[: key if isinstance(key, int) else 0]):
        return  # ``f(*rest, x)``: where x lands is not known
    # The callee's own tests only: where it hands the value on again is not followed (a
    # value handed down every call of a large tree is weighed at every test it meets).
    yield from _in_callee(module, call, key, outcomes, tree, carriers, MAX_CARRY + 2, choices)


def _in_callee(
    module: Module,
    call: ast.Call,
    key: str | int,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
) -> Iterator[Branch]:
    """The tests of the parameter of the tree's function ``call`` calls that the argument
    ``key`` (a position or a keyword) lands in."""
    callee = _callee(module, call, tree)
    if callee is None:
        return
    target, definition = callee
    parameter = _parameter(definition, key, isinstance(call.func, ast.Attribute))
    if parameter is not None:
        yield from _local_tests(
            target, definition, parameter, outcomes, tree, carriers, depth, choices=choices
        )


def _kept(
    module: Module,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    outcomes: Sequence[tuple[str | None, Outcome]],
    tree: Tree,
    carriers: Carriers,
    depth: int,
    choices: bool,
    after: int,
) -> Iterator[Branch]:
    """The local ``name`` kept on the object (``self.use_x = use_x`` in ``__init__``): the
    tests of ``self.use_x`` further on in the same function, as the value itself (in other
    methods the attribute may have been set again)."""
    if module.owner_class(function) is None:
        return
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and node.lineno > after
            and isinstance(node.value, ast.Name)
            and node.value.id == name
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and isinstance(node.targets[0].value, ast.Name)
            and node.targets[0].value.id == "self"
        ):
            attr, stored = node.targets[0].attr, node.lineno
            for load in module.attribute_loads(attr):
                if load.lineno > stored and module.function_node_around(load) is function:
                    yield from uses(
                        module, load, outcomes, tree, carriers, depth + 1, choices=choices
                    )


_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def _returns_naming(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> Iterator[ast.Name]:
    """The loads of the local ``name`` in what ``function`` returns (``return x and ok()``),
    nested functions left out."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            yield from (n for n in ast.walk(node.value) if isinstance(n, ast.Name) and n.id == name)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, _BLOCKS))


def _callee(
    module: Module, call: ast.Call, tree: Tree
) -> tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The function of the tree a call calls, and its module."""
    dotted = module.resolve(call.func, module.owner_class(call))
    if dotted is None:
        return None
    split = tree.split(tree.reexported(dotted))
    if split is None:
        return None
    target, local = split
    definition = target.definitions.get(local)
    if isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
        return target, definition
    return None


def _parameter(
    function: ast.FunctionDef | ast.AsyncFunctionDef, key: str | int, bound: bool
) -> str | None:
    """The parameter an argument lands in: by name, or by position (past ``self`` for a
    method called through an object)."""
    arguments = function.args
    if isinstance(key, str):
        names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
        return key if key in names else None
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if bound and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    return positional[key] if key < len(positional) else None


def _read_node(module: Module, site: Site) -> ast.expr | None:
    """The node of the site's read: of the nodes that start where the site does, the
    innermost call (``os.environ.get(N)``, ``getenv_bool(N)``), else subscript, else
    attribute (``envs.N``)."""
    starting = [
        node
        for node in module.locate.nodes_on(site.line)
        if isinstance(node, ast.expr)
        and getattr(node, "lineno", None) == site.line
        and module.column(node.lineno, node.col_offset) == site.column
    ]
    for kind in (ast.Call, ast.Subscript, ast.Attribute):
        found: ast.expr | None = None
        for node in starting:
            if isinstance(node, kind) and (found is None or _inside(node, found)):
                found = node
        if found is not None:
            return found
    return None


def _inside(node: ast.expr, other: ast.expr) -> bool:
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
    other_end = (other.end_lineno or other.lineno, other.end_col_offset or 0)
    return end < other_end


def _decided(
    module: Module,
    test: ast.expr,
    is_carrier: IsCarrier,
    outcomes: Sequence[tuple[str | None, Outcome]],
    *,
    choices: bool = False,
) -> Iterator[Branch]:
    """The sides of ``test`` with, per probed value, whether the side runs (``choices``:
    the strings the test compares with are probed too, as the value itself)."""
    if choices:
        known = {v for v, _ in outcomes}
        named = [s for s in _compared(module, test) if s not in known]
        outcomes = [*outcomes, *((v, v) for v in named)]
    taken: dict[str | None, tuple[bool, ...]] = {}
    names = _names(module, test)
    for value, outcome in outcomes:
        found = truths(test, is_carrier, outcome, names)
        if found is None and value is None:
            return  # what the test does with the variable unset is not known
        if found is not None:
            taken[value] = found
    if len(set(taken.values())) < 2:
        return  # the carried value does not change what runs
    yield from _sides(module, test, taken, is_carrier if choices else None)


def _compared(module: Module, test: ast.expr) -> list[str]:
    """The strings in ``test``, and in the tuples of strings it names, of the module or
    of the function it sits in (``x not in _BACKENDS``)."""
    found: list[str] = []
    names: Mapping[str, tuple[str, ...]] | None = None
    for node in ast.walk(test):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.Name):
            names = names if names is not None else _names(module, test)
            found.extend(names.get(node.id, ()))
    return list(dict.fromkeys(found))


def _names(module: Module, node: ast.AST) -> Mapping[str, tuple[str, ...]]:
    """The names bound to tuples of strings where ``node`` sits: the module's, and the
    locals of its function (which win)."""
    function = module.function_node_around(node)
    if function is None:
        return module.strings
    return {**module.strings, **module.local_strings(function)}
