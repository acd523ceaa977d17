"""Shell conditions: the verdict of a read from the test that consumes it, and the
equalities a branch runs under (what a write under it is implied by).

A read is probed as Python reads are: unset, every on and off word, and each
literal the test compares it with; the test's outcome under each probe goes to
the same ``classify`` that judges Python gates, so ``[[ "${X:-0}" == "1" ]]``
means what ``os.environ.get("X", "0") == "1"`` means.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from scanner.conventions import EMPTY, OFF_LIKE, OFF_WORDS, ON_LIKE, ON_WORDS
from scanner.interpret.classify import classify
from scanner.interpret.values import RAISED
from scanner.launcher.bash_patterns import Pattern, ere, ere_value, glob
from scanner.launcher.shell_syntax import (
    ALTERNATIVE,
    DEFAULTING,
    REQUIRING,
    Expansion,
    command_name,
    evaluate,
    literal,
    named,
    sole_read,
    text,
)
from scanner.launcher.shell_tree import clip
from scanner.model import VALUE_GATE, Gate, GateKind, unknown_gate

if TYPE_CHECKING:
    from tree_sitter import Node

    from scanner.launcher.shell_tree import Tree

PROBES: Final = (None, *ON_WORDS, *OFF_WORDS, EMPTY)
NUMERIC: Final = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
ORDERING: Final = frozenset({"-lt", "-le", "-gt", "-ge"})
PRESENCE: Final = frozenset({"-n", "-z", "-v"})
_REPEAT = re.compile(r"[*+?{]")
_REPEATED_GROUP = re.compile(r"\)[*+?{]")
# A script's regular expression (=~) is tried only with at most MAX_REPEATS repetitions
# and no repeated group, on values of at most MAX_MATCHED characters (the on and off
# words; a longer default or compared text is not tried).
MAX_REPEATS: Final = 3
MAX_MATCHED: Final = 16
# Patterns with wildcards in a case a read's verdict is judged by (real launchers: a few):
# each is matched against every value probed.
MAX_CASE_GLOBS: Final = 64


def expand(found: Expansion, probe: str | None) -> str | object | None:
    """What ``found`` expands to when its variable holds ``probe`` (None: unset);
    RAISED for ``${N:?}`` on an unset variable, None when it cannot be told."""
    op = found.operator
    empty = probe is None or probe == ""
    if found.length:
        return str(len(probe or ""))
    if op in DEFAULTING or op in REQUIRING:
        unset = empty if op.startswith(":") else probe is None
        if not unset:
            return probe
        return RAISED if op in REQUIRING else found.fallback()
    if op in ALTERNATIVE:
        unset = empty if op.startswith(":") else probe is None
        return "" if unset else literal(found.word)
    if op:
        return None  # ${N%pat}, ${N/a/b}, ${N,,}: not followed
    return probe or ""


@dataclass(frozen=True, slots=True)
class Fact:
    """``name`` equals (or, with ``equal`` False, differs from) ``value``."""

    name: str
    value: str
    equal: bool = True


@dataclass(frozen=True, slots=True)
class Condition:
    """A conjunction of facts, ``exact`` when it is the whole condition."""

    facts: tuple[Fact, ...]
    exact: bool
    text: str

    def negated(self, shown: str | None = None) -> Condition:
        """The condition that holds where this one does not, shown as ``shown`` (the
        script's own ``! test``), else as bash would write it: ``! ! test`` is ``test``."""
        if shown is None:
            if any(op in self.text for op in ("&&", "||", ";")):
                shown = f"! {{ {self.text}; }}"  # ! a && b is (! a) && b
            else:
                shown = self.text[2:] if self.text.startswith("! ") else f"! {self.text}"
        if self.exact and len(self.facts) == 1:
            fact = self.facts[0]
            return Condition((Fact(fact.name, fact.value, not fact.equal),), True, shown)
        return Condition((), False, shown)


def consumer(node: Node, tree: Tree) -> Node | None:
    """The test or ``case`` that decides with the read ``node``, if any."""
    current = node
    while (parent := tree.parent(current)) is not None:
        kind = parent.type
        if kind in ("string", "concatenation"):
            current = parent
            continue
        if kind in ("binary_expression", "unary_expression"):
            return parent
        if kind == "command" and command_name(parent) in ("test", "["):
            return parent
        if kind == "case_statement" and parent.child_by_field_name("value") == current:
            return parent
        return None
    return None


def set_test_verdict() -> Gate:
    """``[[ -v N ]]``: a presence test."""
    return classify({None: False, **{probe: True for probe in PROBES if probe is not None}})


def read_verdict(found: Expansion, tree: Tree) -> Gate:
    """The gate verdict of a read from the test that consumes it (a value when none)."""
    node = consumer(found.node, tree)
    if node is None:
        return VALUE_GATE
    if node.type == "case_statement":
        return _case_verdict(node, found)
    parts = _comparison(node)
    if parts is None:
        return VALUE_GATE  # an && or || of tests: each test judges its own reads
    left, op, right = parts
    if op in ("<", ">") or (op.startswith("-") and op not in NUMERIC and op not in PRESENCE):
        return VALUE_GATE  # string order, file tests: a path or a value
    operand, other = (left, right) if _holds(left, found.node) else (right, left)
    if operand is None:
        return VALUE_GATE
    named_values: list[str] = []
    fixed = literal(other) if other is not None else None
    if other is not None:
        if fixed is None:
            shown = tree.shown(other)
            return unknown_gate(f"it is compared with {shown}, which is not a constant")
        named_values.append(fixed)
    if op in ORDERING or (op in NUMERIC and fixed is not None and fixed.strip() not in ("0", "1")):
        return VALUE_GATE  # a count compared with a threshold, or a number with another
    if op == "=~" and not _tame(fixed or ""):
        return unknown_gate(
            "it is matched against a regular expression with a repeated group or more than "
            f"{MAX_REPEATS} repetitions, which is not tried"
        )
    double = _in_double_brackets(node, tree)
    pattern = _pattern(op, other, double) if left is operand and other is not None else None
    outputs: dict[str | None, object] = {}
    for probe in (*PROBES, *named_values):
        seen = _operand(operand, found, probe)
        if seen is RAISED:
            outputs[probe] = RAISED
            continue
        if seen is None or not isinstance(seen, str):
            shown = tree.shown(operand)
            return unknown_gate(f"it is compared as part of {shown}, which is not followed")
        outputs[probe] = _compare(op, seen, fixed, pattern, double, left is operand)
    if _negated(node, tree):
        outputs = {k: (not v if isinstance(v, bool) else v) for k, v in outputs.items()}
    gate = classify(outputs, named_values)
    if gate.kind is GateKind.PRESENCE and _tested_again(node, found, tree):
        return unknown_gate(
            "it is tested again in the same condition, so whether it is set does not decide alone"
        )
    return gate


def _tested_again(node: Node, found: Expansion, tree: Tree) -> bool:
    """Whether the condition around the test ``node`` (its ``&&`` and ``||`` inside one
    ``[[ ]]``) reads the variable again: ``[[ -n $X && $X != 0 ]]``."""
    top = node
    while (parent := tree.parent(top)) is not None and parent.type in (
        "binary_expression",
        "parenthesized_expression",
    ):
        top = parent
    return tree.names_read(top)[found.name] > 1  # the read itself is one


def _operand(operand: Node | None, found: Expansion, probe: str | None) -> object:
    if operand is None:
        return None
    raised = False

    def value(exp: Expansion) -> str | None:
        nonlocal raised
        if exp.node != found.node:
            return None  # another read of the variable in the same word: not followed
        result = expand(found, probe)
        if result is RAISED:
            raised = True
            return ""
        return result if isinstance(result, str) else None

    seen = evaluate(operand, found.name, value)
    return RAISED if raised else seen


def _pattern(op: str, other: Node, double: bool) -> Pattern | None:
    """The pattern on the right of ``==`` or ``=~`` in ``[[ ]]``, as bash matches it."""
    if op == "=~":
        return ere(other)
    if op in ("=", "==", "!=") and double:
        return glob(other)
    return None


def _compare(
    op: str, seen: str, fixed: str | None, pattern: Pattern | None, double: bool, seen_left: bool
) -> object:
    if op in ("-n", "-z"):
        return (seen != "") == (op == "-n")
    if op in ("=", "==", "!="):
        same = pattern.matches(seen) if pattern is not None else seen == fixed
        return RAISED if same is None else same == (op != "!=")
    if op == "=~":
        if len(seen) > MAX_MATCHED:
            return RAISED  # not tried
        # the read on the right is the expression, matched against the text on the left
        tried = ere_value(seen).matches(fixed or "") if not seen_left else None
        found = pattern.matches(seen) if pattern is not None else tried
        return RAISED if found is None else found
    if op in NUMERIC:
        a, b = (seen, fixed or "") if seen_left else (fixed or "", seen)
        try:
            x = int(a) if a.strip() or not double else 0
            y = int(b) if b.strip() or not double else 0
        except ValueError:
            return RAISED  # bash: "integer expression expected"
        return {
            "-eq": x == y,
            "-ne": x != y,
            "-lt": x < y,
            "-le": x <= y,
            "-gt": x > y,
            "-ge": x >= y,
        }[op]
    return RAISED


def _comparison(node: Node) -> tuple[Node | None, str, Node | None] | None:
    """``(left, operator, right)`` of a binary or unary test (left None for unary)."""
    if node.type == "command":
        args = [c for c in named(node) if c.type != "command_name"]
        if args and text(args[-1]) == "]":
            args = args[:-1]
        if len(args) == 3:
            return args[0], text(args[1]), args[2]
        if len(args) == 2 and text(args[0]) in PRESENCE:
            return None, text(args[0]), args[1]
        if len(args) == 1:
            return None, "-n", args[0]
        return None
    children = node.children
    if node.type == "unary_expression":
        if len(children) == 2 and text(children[0]) != "!":
            return None, text(children[0]), children[1]
        return None
    if len(children) == 3:
        op = text(children[1])
        if op in ("&&", "||", "-a", "-o"):
            return None
        return children[0], op, children[2]
    return None


def _tame(pattern: str) -> bool:
    """Whether the script's regular expression is tried: Python's re backtracks, and a
    repeated group or many repetitions can take it exponential or high-power time; any
    ``*``, ``+``, ``?`` or ``{`` counts, escaped or in a class too."""
    return not _REPEATED_GROUP.search(pattern) and len(_REPEAT.findall(pattern)) <= MAX_REPEATS


def _holds(node: Node | None, inner: Node) -> bool:
    if node is None:
        return False
    return node.start_byte <= inner.start_byte and inner.end_byte <= node.end_byte


def _in_double_brackets(node: Node, tree: Tree) -> bool:
    current: Node | None = node
    while current is not None:
        if current.type == "test_command":
            return tree.data.startswith(b"[[", current.start_byte)
        current = tree.parent(current)
    return False


def _negated(node: Node, tree: Tree) -> bool:
    """Whether ``!`` (inside the test, or before the command) negates the test's outcome."""
    flips = 0
    current = tree.parent(node)
    while current is not None:
        if (
            current.type == "unary_expression"
            and current.children
            and text(current.children[0]) == "!"
        ):
            flips += 1
        elif current.type == "negated_command":
            flips += 1
            break
        elif current.type not in ("parenthesized_expression", "test_command"):
            break
        current = tree.parent(current)
    return flips % 2 == 1


def _case_verdict(node: Node, found: Expansion) -> Gate:
    """``case "${N:-triton}" in ...``: which item each probe picks."""
    items = [c for c in named(node) if c.type == "case_item"]
    patterns: list[list[Pattern]] = []
    for item in items:
        values = [glob(v) for v in _item_values(item)]
        if any(v is None for v in values):
            return unknown_gate("a case pattern is not a constant")
        patterns.append([v for v in values if v is not None])
    choices = tuple(
        dict.fromkeys(p.fixed for group in patterns for p in group if p.fixed is not None)
    )
    first_literal: dict[str, int] = {}  # a pattern with no wildcard matches only itself
    globs: list[tuple[int, Pattern]] = []
    for at, group in enumerate(patterns):
        for pattern in group:
            if pattern.fixed is None:
                globs.append((at, pattern))
            else:
                first_literal.setdefault(pattern.fixed, at)
    if len(globs) > MAX_CASE_GLOBS:
        return unknown_gate(f"its case has more than {MAX_CASE_GLOBS} patterns with wildcards")
    outputs: dict[str | None, object] = {}
    value = node.child_by_field_name("value")
    for probe in (*PROBES, *choices):
        seen = _operand(value, found, probe)
        if not isinstance(seen, str):
            outputs[probe] = RAISED
            continue
        outputs[probe] = _picked(seen, first_literal.get(seen, len(patterns)), globs)
    outcomes = {o for o in outputs.values() if isinstance(o, int)}
    words = {c.lower() for c in choices}
    if len(outcomes) > 2 or (not words <= ON_LIKE | OFF_LIKE and len(choices) > 1):
        return Gate(kind=GateKind.VALUE, choices=choices)
    if len(outcomes) == 2 and choices:
        first = next(
            i for i, group in enumerate(patterns) if any(p.fixed == choices[0] for p in group)
        )
        outputs = {k: (v == first if isinstance(v, int) else v) for k, v in outputs.items()}
    gate = classify(outputs, choices)
    return gate if gate.kind is not GateKind.VALUE else Gate(kind=GateKind.VALUE, choices=choices)


def _picked(seen: str, literal_at: int, globs: list[tuple[int, Pattern]]) -> object:
    """The item a case picks for ``seen``: the first pattern with wildcards before the
    first literal equal to it that matches, else that literal's (RAISED where a pattern
    before it is not tried)."""
    for at, pattern in globs:
        if at >= literal_at:
            break
        matched = pattern.matches(seen)
        if matched is None:
            return RAISED
        if matched:
            return at
    return literal_at


def _item_values(item: Node) -> list[Node]:
    values: list[Node] = []
    for child in item.children:
        if child.type == ")":
            break
        if child.is_named:
            values.append(child)
    return values


def condition_of(nodes: Sequence[Node], written: Callable[[Node], str] = text) -> Condition:
    """The equalities a branch guarded by ``nodes`` (an ``if`` condition, the left of
    ``&&``) runs under; ``written`` gives a node's text as the file spells it."""
    source = clip(" ".join(written(n) for n in nodes).strip().rstrip(";").strip())
    statements = [n for n in nodes if n.is_named and n.type != "comment"]
    if len(statements) != 1:
        return Condition((), False, source)
    return _condition(statements[0], source)


def _condition(node: Node, source: str) -> Condition:
    kind = node.type
    if kind == "test_command":
        inner = named(node)
        return _condition(inner[0], source) if len(inner) == 1 else Condition((), False, source)
    if kind == "negated_command":
        inner = named(node)
        return (
            _condition(inner[0], source).negated(source) if inner else Condition((), False, source)
        )
    if kind in ("list", "binary_expression") and len(node.children) == 3:
        op = text(node.children[1])
        if op in ("&&", "-a"):
            left = _condition(node.children[0], source)
            right = _condition(node.children[2], source)
            return Condition(left.facts + right.facts, left.exact and right.exact, source)
    if kind == "parenthesized_expression":
        inner = named(node)
        return _condition(inner[0], source) if len(inner) == 1 else Condition((), False, source)
    if kind == "unary_expression" and node.children and text(node.children[0]) == "!":
        return _condition(node.children[1], source).negated(source)
    if kind in ("binary_expression", "command"):
        fact = _fact(node)
        if fact is not None:
            return Condition((fact,), True, source)
    return Condition((), False, source)


def _fact(node: Node) -> Fact | None:
    """``N == v``, ``N != v``, ``N -eq v``: a test of one variable against a constant."""
    if node.type == "command" and command_name(node) not in ("test", "["):
        return None
    parts = _comparison(node)
    if parts is None:
        return None
    left, op, right = parts
    if op not in ("=", "==", "!=", "-eq", "-ne") or left is None or right is None:
        return None
    for read, other in ((left, right), (right, left)):
        name = sole_read(read)
        pattern = glob(other)
        if name is not None and pattern is not None and pattern.fixed is not None:
            return Fact(name, pattern.fixed, op in ("=", "==", "-eq"))
    return None
