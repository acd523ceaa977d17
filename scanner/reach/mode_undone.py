"""The side of a kernel choice under which the tree's own launcher undoes its deterministic mode.

Where each value of a gate reaches a kernel of its own, the code does not say which is safe
(``scanner.reach.evidence``), unless the tree says it another way: its launcher turns the
framework's deterministic mode off when the knob takes one value (InternLM/xtuner b934f46,
examples/v1/scripts/run_sft.sh:21-25: ``if [[ "${XTUNER_USE_FA3}" == "1" ]]; then export
XTUNER_DETERMINISTIC=false``, "FA3 does not support deterministic backward"). That value
runs a kernel the tree does not run deterministically, and a recipe that turns the mode on
is undone by it: a bitwise run takes the other value of the switch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from scanner.model import GateKind, Knob, Role, Write
from scanner.roles import Evidence

ModeOf = Callable[[str], "Evidence | None"]  # a knob's evidence, by its name


def undoing_writes(writes: Iterable[Write]) -> dict[str, list[tuple[str, Write]]]:
    """Per variable, the launcher writes of a known value made only when that variable
    holds one value (the write's whole condition), with that value."""
    found: dict[str, list[tuple[str, Write]]] = {}
    for write in sorted(writes, key=lambda w: w.sort_key):
        if (
            write.launches
            and write.name is not None
            and write.value is not None
            and len(write.when) == 1
        ):
            name, value = write.when[0]
            found.setdefault(name, []).append((value, write))
    return found


def mode_undone(
    knob: Knob,
    evidence: Evidence | None,
    undoing: Mapping[str, Sequence[tuple[str, Write]]],
    knobs: Mapping[str, Knob],
    mode_of: ModeOf,
) -> Evidence | None:
    """``evidence``, or a kernel choice where it is one between kernels of each value's own
    and the launcher writes a deterministic mode's off value when ``knob`` holds one of
    its switch values: the other one is the value a bitwise run writes."""
    if evidence is None or not evidence.rivals or knob.kind is not GateKind.BOOLEAN:
        return evidence
    for value, write in undoing.get(knob.name, ()):
        other = _other(knob, value)
        mode = knobs.get(write.name or "")
        if other is None or mode is None or mode.name == knob.name:
            continue
        shown = mode_of(mode.name)
        if shown is None or shown.role is not Role.DETERMINISM or shown.value is None:
            continue
        if write.value == shown.value or write.value not in _off(mode):
            continue
        return Evidence(
            Role.KERNEL,
            f"{evidence.reason}; with {knob.name}={value!r} the tree's launcher turns "
            f"{mode.name}, the framework's deterministic mode, off ({mode.name}="
            f"{write.value!r} at {write.path}:{write.line}): a bitwise run takes {other!r}",
            value=other,
            default_reaches=other in _off(knob),
        )
    return evidence


def _off(knob: Knob) -> frozenset[str]:
    """The values every site of ``knob`` reads as off."""
    every = [set(s.gate.off_values) for s in knob.sites if s.gate.kind is GateKind.BOOLEAN]
    return frozenset(set.intersection(*every)) if every else frozenset()


def _other(knob: Knob, value: str) -> str | None:
    """The switch value that is not ``value``: the off value where ``value`` turns the knob
    on, the on value where it turns it off; None where the knob's sites do not agree."""
    off = _off(knob)
    on = [set(s.gate.on_values) for s in knob.sites if s.gate.kind is GateKind.BOOLEAN]
    on_all = frozenset(set.intersection(*on)) if on else frozenset()
    if value in on_all and knob.off_value in off:
        return knob.off_value
    if value in off and knob.on_value in on_all:
        return knob.on_value
    return None
