"""A branch a variable's value decides, and the two sides of the test that decides it."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from scanner.model import Outcome
from scanner.reach.marks import Mark
from scanner.reach.modules import Module
from scanner.reach.truth import IsCarrier, member_name, truths
from scanner.source.ast_walk import walk

_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
TESTED = (ast.If, ast.While, ast.IfExp, ast.Assert)
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
    # How the value came to the test, where the test reads it through an object
    # (``the field `enabled` of PunicaWrapper, ...``): said with the branch.
    via: str = ""
    _more: dict[str, tuple[bool, ...] | None] = field(default_factory=dict)

    def runs(self, value: str | None) -> tuple[bool, ...] | None:
        """Whether the branch runs under ``value``, for each choice of the rest of its test
        (None: not known)."""
        known = self.taken.get(value)
        if known is not None or value is None or self.carrier is None:
            return known
        if value not in self._more:
            found = truths(self.test, self.carrier, value, names_around(self.module, self.test))
            if found is not None and not self.holds:
                found = tuple(not t for t in found)
            # where the other values have several outcomes (``_alternatives``), this one,
            # a string given back unchanged, has its one under each
            most = max((len(t) for t in self.taken.values() if t is not None), default=0)
            if found and most > len(found) and most % len(found) == 0:
                found = found * (most // len(found))
            self._more[value] = found
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
        via = f" ({self.via})" if self.via else ""
        if self.marks:
            return f"`{shown}` at {self.where}{via}"
        return f"the branch of `{shown}` at {self.where}{via}"


def sides(
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
        if not other and leaves(body):
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


def leaves(body: Sequence[ast.stmt]) -> bool:
    """Whether a block ends by leaving its function or loop."""
    return bool(body) and isinstance(body[-1], _EXITS)


def decided(
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
    rows: dict[str | None, list[tuple[bool, ...]]] = {}
    names = names_around(module, test)
    levels = _levels(outcomes)
    for value, outcome in outcomes:
        found = truths(test, is_carrier, outcome, names, levels)
        if found is None and value is None:
            return  # what the test does with the variable unset is not known
        if found is not None:
            rows.setdefault(value, []).append(found)
    taken = alternatives(rows)
    if len(set(taken.values())) < 2:
        return  # the carried value does not change what runs
    yield from sides(module, test, taken, is_carrier if choices else None)


def _compared(module: Module, test: ast.expr) -> list[str]:
    """The strings in ``test``, and in the tuples of strings it names, of the module or
    of the function it sits in (``x not in _BACKENDS``)."""
    found: list[str] = []
    names: Mapping[str, tuple[str, ...]] | None = None
    for node in walk(test):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.Name):
            names = names if names is not None else string_tuples_around(module, test)
            found.extend(names.get(node.id, ()))
    return list(dict.fromkeys(found))


def names_around(module: Module, node: ast.AST) -> Mapping[str, object]:
    """What a test's names are known to hold: the tuples of strings around it
    (``string_tuples_around``) and the enumeration members it names (``Mode.OFF``, a
    member of an ``IntEnum`` of the tree, is its number)."""
    members = {
        name: value
        for found in walk(node)
        if (name := member_name(found)) is not None and (value := module.member(name)) is not None
    }
    tuples = string_tuples_around(module, node)
    return {**tuples, **members} if members else tuples


def string_tuples_around(module: Module, node: ast.AST) -> Mapping[str, tuple[str, ...]]:
    """The names bound to tuples of strings where ``node`` sits: the module's, and the
    locals of its function (which win)."""
    function = module.function_node_around(node)
    if function is None:
        return module.strings
    return {**module.strings, **module.local_strings(function)}


MAX_LEVELS = 4  # the numbers a carried threshold is tried at


def _levels(outcomes: Sequence[tuple[str | None, Outcome]]) -> tuple[int | float, ...]:
    """The numbers the carrier takes, where every outcome is one (``{"1": 3, "0": 1 <<
    30}.get(x, 8)``): a test that compares it with another value (``top_k >= carrier``)
    holds for more or fewer of those as the value moves the threshold."""
    numbers = sorted(
        {o for _, o in outcomes if isinstance(o, int | float) and not isinstance(o, bool)}
    )
    if (
        len(numbers) < 2
        or len(numbers) > MAX_LEVELS
        or len(numbers) < len({o for _, o in outcomes})
    ):
        return ()
    return tuple(numbers)


def alternatives(rows: Mapping[str | None, Sequence[tuple[bool, ...]]]) -> Taken:
    """Per value, whether the side runs, where a value may have several outcomes (unset,
    a function returns what the machine computes: ``scanner.reach.guarded``): which one
    the machine gives is one more choice of the rest, the same for every value (a value
    with one outcome gives it under each)."""
    most = max((len(found) for found in rows.values()), default=1)
    return {
        value: tuple(t for at in range(most) for t in found[at % len(found)])
        for value, found in rows.items()
        if most % len(found) == 0
    }
