"""What the code around a read says beyond its probes: a guard, an index, a disabling name."""

from __future__ import annotations

import libcst as cst

from scanner.conventions import says_disable
from scanner.interpret.classify import is_number
from scanner.interpret.gates import Probes, names_an_index
from scanner.interpret.module import ParsedModule
from scanner.interpret.read_names import resolve_names
from scanner.interpret.uses import name_matcher, used_beyond_tests
from scanner.interpret.values import V
from scanner.model import (
    ReadKind,
    WriteKind,
)
from scanner.syntax.events import Event
from scanner.syntax.index import WrapperIndex
from scanner.syntax.walk import nodes


def bound_condition_says_disable(event: Event, probes: Probes) -> bool:
    """Whether the read's condition is bound to a name that says it turns a feature off
    (``disable_fused = get("X", "0") == "1"``, ``def fusion_disabled(): return ...``). The
    name of a variable holding the raw value says nothing of what its test does."""
    binding = event.binding
    if binding is None or not event.chain or not says_disable(binding.name):
        return False
    unset = next((obs for value, obs in probes if value is None), None)
    bound = unset.chain.get(event.chain[-1]) if unset is not None else None
    return bound is not None and isinstance(bound.value, bool)


def an_index(event: Event, knob: str, probes: Probes) -> bool:
    """Whether the read is made a number (``int()``, ``float()``) and the variable, or the
    local the number is bound to, is named for an index or a count: compared with 0 or 1
    it asks which process or device this is, as a switch's int() of "0" and "1" would."""
    if not any(obs.counted for _, obs in probes):
        return False
    if names_an_index(knob):
        return True
    binding = event.binding
    if binding is None or binding.value is None or binding.store == "other":
        return False
    unset = next((obs for value, obs in probes if value is None), None)
    bound = unset.chain.get(id(binding.value)) if unset is not None else None
    return bound is not None and is_number(bound.value) and names_an_index(binding.name)


def guards_a_read(parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex) -> bool:
    """Whether a membership test sits in the same scope as a read of the variable's
    value (``if N in os.environ: path = os.environ[N]``)."""
    if event.kind is not ReadKind.CONTAINS:
        return False
    for other in parsed.events(index):
        if other is event or other.unit.scope is not event.unit.scope or not other.is_read:
            continue
        if other.kind in (ReadKind.CONTAINS, ReadKind.WRAPPER, ReadKind.DESCRIPTOR):
            continue
        if event.unit.scope is None and other.unit.statements != event.unit.statements:
            continue
        names = resolve_names(parsed, other, index)
        if any(n.known and n.value == knob for n in names):
            return True
    return False


_WRITES = (
    WriteKind.SET,
    WriteKind.SETDEFAULT,
    WriteKind.PUTENV,
    WriteKind.POP,
    WriteKind.DELETE,
    WriteKind.UNSETENV,
)


def guards_a_write(parsed: ParsedModule, event: Event, knob: str, index: WrapperIndex) -> bool:
    """Whether the read (or a local holding what it read) is in the test of an ``if`` whose
    branches set or remove the variable itself: the test decides only whether to write it,
    and what uses the variable reads it later."""
    roots = [event.unit.scope] if event.unit.scope is not None else [*event.unit.statements]
    binding = event.binding
    local = None
    if binding is not None and binding.store == "local" and binding.value is event.node:
        local = binding.name
    branches = {
        id(part)
        for root in roots
        for node in nodes(root)
        if isinstance(node, cst.If) and _tests_the_read(node.test, event, local)
        for part in (node.body, node.orelse)
        if part is not None
    }
    if not branches:
        return False
    for other in parsed.events(index):
        if other.kind not in _WRITES or other.unit.scope is not event.unit.scope:
            continue
        if branches.isdisjoint(other.target):
            continue
        if any(n.known and n.value == knob for n in resolve_names(parsed, other, index)):
            return True
    return False


def _tests_the_read(test: cst.BaseExpression, event: Event, local: str | None) -> bool:
    if id(test) in event.target:
        return True
    return local is not None and any(
        isinstance(n, cst.Name) and n.value == local for n in nodes(test)
    )


def used_as_value(event: Event, probes: Probes) -> bool:
    """Whether the local the read's value is bound to (as read) is used for more than
    being tested for truth or None."""
    binding, scope = event.binding, event.unit.scope
    if binding is None or binding.store != "local" or not isinstance(scope, cst.FunctionDef):
        return False
    if (
        binding.value is None
        or not event.chain
        or not all(
            _same(obs.chain.get(id(binding.value)), obs.chain.get(event.chain[0]))
            for _, obs in probes
        )
    ):
        return False  # the local holds something computed from the value, not the value
    return used_beyond_tests(scope.body, name_matcher(binding.name))


def _same(first: V | None, second: V | None) -> bool:
    return first is not None and second is not None and first.value == second.value
