"""Whether a branch test holds when a value the variable decided (the *carrier*) takes
each of its outcomes, whatever the rest of the test is.

The rest of the test is made of *atoms*: parts that do not depend on the carrier, and
parts that do in a way not followed here, each taken as free to be true or false. A test
is evaluated under every choice of its atoms (at most ``MAX_ATOMS`` of them): the truth
values it can take under an outcome say whether its branch runs (always, never, or
depending on the rest). ``use_triton or enabled()`` and ``enabled() and supported(x)``
decide with the carrier ``enabled()`` as much as ``enabled()`` alone, for some values of
the rest.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Mapping
from typing import Any, Final

from scanner.model import Outcome
from scanner.source.ast_walk import walk

MAX_ATOMS = 5
_UNKNOWN: Final = object()
_CONVERSIONS: Final[dict[str, Callable[[Any], object]]] = {
    "bool": bool,
    "int": int,
    "float": float,
    "str": str,
}
_STRING_METHODS: Final = frozenset({"lower", "upper", "strip", "casefold", "lstrip", "rstrip"})

IsCarrier = Callable[[ast.expr], bool]
# Module names bound to tuples of strings, and enumeration members (``Mode.OFF``) to values.
Names = Mapping[str, object]
_NO_NAMES: Names = {}


def truths(
    test: ast.expr,
    is_carrier: IsCarrier,
    outcome: Outcome,
    names: Names = _NO_NAMES,
    levels: tuple[int | float, ...] = (),
) -> tuple[bool, ...] | None:
    """Whether ``test`` holds when the carrier is ``outcome``, under each choice of its
    atoms (the same choices, in the same order, for every outcome); None when the test
    does not say how it uses the carrier (too many atoms, or a use not followed).
    ``names``: module names whose value is known (``x in _BACKENDS``). ``levels``: the
    numbers the carrier takes under the probes, where it is a threshold (``top_k >=
    carrier``): the other side of that comparison is tried at each of them."""
    sides = _sides_of_thresholds(test, is_carrier) if levels else {}
    atoms, same = _atoms(test, is_carrier, names, sides)
    graded = [a for a in atoms if a in sides.values()]
    atoms = [a for a in atoms if a not in graded]
    if len(atoms) > MAX_ATOMS or len(graded) > 1:
        return None
    found: list[bool] = []
    choices = itertools.product(*([(False, True)] * len(atoms)), *([levels] * len(graded)))
    for choice in choices:
        assigned: dict[int, object] = dict(zip([*atoms, *graded], choice, strict=True))
        assigned.update((node, assigned[atom]) for node, atom in same.items())
        value = _Evaluator(is_carrier, outcome, assigned, names).truth(test)
        if value is _UNKNOWN:
            return None
        found.append(bool(value))
    return tuple(found)


def value_of(node: ast.expr, is_carrier: IsCarrier, outcome: Outcome) -> tuple[bool, object]:
    """Whether ``node`` has a value computed from the carrier's ``outcome`` and literals
    alone (``str(x or "eager")``, ``x.lower()``), and that value."""
    if not _evaluable(node, is_carrier, _NO_NAMES):
        return False, None
    value = _Evaluator(is_carrier, outcome, {}, _NO_NAMES).value(node)
    return value is not _UNKNOWN, value


def _sides_of_thresholds(test: ast.expr, is_carrier: IsCarrier) -> dict[int, int]:
    """The ordering comparisons of the carrier itself in ``test``, each with its other
    operand (``top_k`` of ``top_k >= carrier``; not a literal), by id."""
    found: dict[int, int] = {}
    for node in walk(test):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.Lt | ast.LtE | ast.Gt | ast.GtE)
        ):
            left, right = node.left, node.comparators[0]
            if is_carrier(right) and not _holds_carrier(left, is_carrier):
                other = left
            elif is_carrier(left) and not _holds_carrier(right, is_carrier):
                other = right
            else:
                continue
            if not isinstance(other, ast.Constant):  # ``x <= 0``: a literal, not a level
                found[id(node)] = id(other)
    return found


def _atoms(
    test: ast.expr, is_carrier: IsCarrier, names: Names, thresholds: Mapping[int, int] | None = None
) -> tuple[list[int], dict[int, int]]:
    """The parts of ``test`` in a boolean position that are not evaluated here; and the
    parts that take the same choice as one of them: the operands of one ``and`` (or one
    ``or``) that do not hold the carrier decide together (``a and X and b and c`` is
    ``(a and b and c) and X``), one atom however many they are."""
    found: list[int] = []
    same: dict[int, int] = {}

    def boolean(node: ast.expr) -> None:
        if not _holds_carrier(node, is_carrier):
            found.append(id(node))  # decided by the rest alone: one atom, however made
        elif isinstance(node, ast.IfExp):
            for part in (node.test, node.body, node.orelse):
                boolean(part)
        elif isinstance(node, ast.BoolOp):
            rest: int | None = None
            for value in node.values:
                if _holds_carrier(value, is_carrier):
                    boolean(value)
                elif rest is None:
                    rest = id(value)
                    found.append(rest)
                else:
                    same[id(value)] = rest
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            boolean(node.operand)
        elif (items := _among(node, is_carrier, names)) is not None:
            found.append(id(items))  # whether the rest of the items hold it: one atom
        elif thresholds and id(node) in thresholds:
            found.append(thresholds[id(node)])  # the other operand, tried at each level
        elif not _evaluable(node, is_carrier, names):
            found.append(id(node))

    boolean(test)
    return found, same


def _among(node: ast.expr, is_carrier: IsCarrier, names: Names) -> ast.expr | None:
    """The items of ``"0" in (x, other(), ...)``, a literal looked for among items one of
    which is the carrier and others not known here (``"0" == x or "0" in (other(), ...)``)."""
    if not (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
        and isinstance(node.left, ast.Constant)
    ):
        return None
    items = node.comparators[0]
    if not isinstance(items, ast.Tuple | ast.List | ast.Set) or any(
        isinstance(e, ast.Starred) for e in items.elts
    ):
        return None
    known = [is_carrier(e) or isinstance(e, ast.Constant) for e in items.elts]
    if not any(is_carrier(e) for e in items.elts) or all(known):
        return None
    return items


def _evaluable(node: ast.expr, is_carrier: IsCarrier, names: Names) -> bool:
    """Whether ``node`` has a value computed from the carrier and literals alone."""
    if is_carrier(node) or isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return member_name(node) in names
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    if isinstance(node, ast.Compare):
        operands = (node.left, *node.comparators)
        return all(_evaluable(n, is_carrier, names) for n in operands) and any(
            _holds_carrier(n, is_carrier) for n in operands
        )
    if isinstance(node, ast.BoolOp):
        return all(_evaluable(v, is_carrier, names) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _evaluable(node.operand, is_carrier, names)
    if isinstance(node, ast.Call) and _table(node) is not None:
        return _evaluable(node.args[0], is_carrier, names)
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) <= 1:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _CONVERSIONS and len(node.args) == 1:
            return _evaluable(node.args[0], is_carrier, names)
        if isinstance(func, ast.Attribute) and func.attr in _STRING_METHODS and not node.args:
            return _evaluable(func.value, is_carrier, names)
    return False


def member_name(node: ast.AST) -> str | None:
    """``Mode.OFF`` of an attribute of a bare name, the way ``Names`` keys a member."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _holds_carrier(node: ast.expr, is_carrier: IsCarrier) -> bool:
    return any(is_carrier(n) for n in walk(node) if isinstance(n, ast.expr))


class _Evaluator:
    def __init__(
        self, is_carrier: IsCarrier, outcome: Outcome, atoms: Mapping[int, object], names: Names
    ) -> None:
        self.is_carrier = is_carrier
        self.outcome = outcome
        self.atoms = atoms
        self.names = names

    def truth(self, node: ast.expr) -> object:
        value = self.value(node)
        if value is _UNKNOWN:
            return _UNKNOWN
        try:
            return bool(value)
        except Exception:
            return _UNKNOWN

    def value(self, node: ast.expr) -> object:
        if id(node) in self.atoms:
            return self.atoms[id(node)]
        if self.is_carrier(node):
            return self.outcome
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.names[node.id]
        if isinstance(node, ast.Attribute) and member_name(node) in self.names:
            return self.names[str(member_name(node))]
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return tuple(e.value for e in node.elts if isinstance(e, ast.Constant))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.truth(node.operand)
            return _UNKNOWN if inner is _UNKNOWN else not inner
        if isinstance(node, ast.BoolOp):
            return self._boolean(node)
        if isinstance(node, ast.IfExp):
            test = self.truth(node.test)
            if test is _UNKNOWN:
                return _UNKNOWN
            return self.value(node.body if test else node.orelse)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        return _UNKNOWN

    def _boolean(self, node: ast.BoolOp) -> object:
        is_and = isinstance(node.op, ast.And)
        value: object = _UNKNOWN
        for operand in node.values:
            value = self.value(operand)
            truth = self.truth(operand)
            if truth is _UNKNOWN:
                return _UNKNOWN
            if bool(truth) is not is_and:
                return value
        return value

    def _compare(self, node: ast.Compare) -> object:
        rest = self.atoms.get(id(node.comparators[0]))
        items = node.comparators[0]
        if (  # ``"0" in (x, other())``: the carrier's item, or the rest
            rest is not None
            and isinstance(items, ast.Tuple | ast.List | ast.Set)
            and isinstance(node.ops[0], ast.In | ast.NotIn)
        ):
            sought = self.value(node.left)
            held = rest or any(sought == self.value(e) for e in items.elts if self.is_carrier(e))
            return held if isinstance(node.ops[0], ast.In) else not held
        left = self.value(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.value(right_node)
            if left is _UNKNOWN or right is _UNKNOWN:
                return _UNKNOWN
            try:
                holds = _compared(op, left, right)
            except Exception:
                return _UNKNOWN
            if holds is _UNKNOWN or not holds:
                return holds
            left = right
        return True

    def _call(self, node: ast.Call) -> object:
        func = node.func
        table = _table(node)
        if table is not None:
            key = self.value(node.args[0])
            if key is _UNKNOWN:
                return _UNKNOWN
            entries, default = table
            return entries.get(key, default) if isinstance(key, str) else _UNKNOWN
        try:
            if isinstance(func, ast.Name) and func.id in _CONVERSIONS:
                inner = self.value(node.args[0])
                return _UNKNOWN if inner is _UNKNOWN else _CONVERSIONS[func.id](inner)
            if isinstance(func, ast.Attribute) and func.attr in _STRING_METHODS:
                inner = self.value(func.value)
                if isinstance(inner, str):
                    return getattr(inner, func.attr)()
        except Exception:
            return _UNKNOWN
        return _UNKNOWN


def _table(node: ast.Call) -> tuple[dict[str, object], object] | None:
    """The entries and the default of a lookup in a literal table by string keys
    (``{"1": 3, "0": 1 << 30}.get(x, 8)``: unslothai unsloth_zoo
    temporary_patches/moe_utils.py:2447), or None for any other call."""
    func = node.func
    if (
        not isinstance(func, ast.Attribute)
        or func.attr != "get"
        or not isinstance(func.value, ast.Dict)
        or node.keywords
        or not 1 <= len(node.args) <= 2
    ):
        return None
    entries: dict[str, object] = {}
    for key, value in zip(func.value.keys, func.value.values, strict=True):
        literal = _literal(value)
        if (
            not isinstance(key, ast.Constant)
            or not isinstance(key.value, str)
            or literal is _UNKNOWN
        ):
            return None
        entries[key.value] = literal
    default = _literal(node.args[1]) if len(node.args) == 2 else None
    return (entries, default) if default is not _UNKNOWN else None


_ARITHMETIC: Final[dict[type[ast.operator], Callable[[Any, Any], object]]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.LShift: lambda a, b: a << b if 0 <= b <= 64 else _UNKNOWN,
}


def _literal(node: ast.expr) -> object:
    """The value of a constant, or of integer arithmetic on constants (``1 << 30``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bool | int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal(node.operand)
        return (
            -inner if isinstance(inner, int | float) and not isinstance(inner, bool) else _UNKNOWN
        )
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _literal(node.left), _literal(node.right)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in (left, right)):
            return _ARITHMETIC[type(node.op)](left, right)
    return _UNKNOWN


def _compared(op: ast.cmpop, left: object, right: object) -> object:
    if isinstance(op, ast.Eq):
        return left == right
    if isinstance(op, ast.NotEq):
        return left != right
    if isinstance(op, ast.Is):
        return (
            left is right
            if left is None or right is None or isinstance(left, bool)
            else left == right
        )
    if isinstance(op, ast.IsNot):
        return (
            left is not right
            if left is None or right is None or isinstance(left, bool)
            else left != right
        )
    if isinstance(op, ast.In):
        return left in right  # type: ignore[operator]
    if isinstance(op, ast.NotIn):
        return left not in right  # type: ignore[operator]
    if isinstance(op, ast.Lt):
        return left < right  # type: ignore[operator]
    if isinstance(op, ast.LtE):
        return left <= right  # type: ignore[operator]
    if isinstance(op, ast.Gt):
        return left > right  # type: ignore[operator]
    if isinstance(op, ast.GtE):
        return left >= right  # type: ignore[operator]
    return _UNKNOWN


def atom_texts(test: ast.expr, is_carrier: IsCarrier, names: Names = _NO_NAMES) -> list[str]:
    """The source shapes (``ast.dump``) of the atoms of ``test``: the same shape in two
    tests of one function (``_check_grouped_gemm_available()``) is one choice of the rest."""
    atoms, _ = _atoms(test, is_carrier, names)
    nodes = {id(n): n for n in walk(test)}
    return [ast.dump(nodes[a]) for a in atoms]


def truth_given(
    test: ast.expr,
    is_carrier: IsCarrier,
    outcome: Outcome,
    chosen: Mapping[str, bool],
    names: Names = _NO_NAMES,
) -> bool | None:
    """Whether ``test`` holds when the carrier is ``outcome`` and each atom is as
    ``chosen`` by its shape (``atom_texts``); None where the test does not say."""
    atoms, same = _atoms(test, is_carrier, names)
    nodes = {id(n): n for n in walk(test)}
    assigned: dict[int, object] = {a: chosen[ast.dump(nodes[a])] for a in atoms}
    assigned.update((node, assigned[atom]) for node, atom in same.items())
    value = _Evaluator(is_carrier, outcome, assigned, names).truth(test)
    return None if value is _UNKNOWN else bool(value)
