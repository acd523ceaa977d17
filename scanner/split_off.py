"""A switch whose sites split on the value that turns them off, tied by its branches.

Sites of one knob may test one value with opposite senses (``X != "none"`` in one file,
``X == "none"`` in another): each site's "on" is the side its test holds, not the kernel's,
so no single value turns every site off, and the knob is left undecided. Where the code's
evidence has followed one value through every site's test (``scanner.reach.evidence``:
unset runs a kernel, the value leaves it, and what the value runs instead reaches no such
kernel), that value is the knob's off value, provided no site keeps its kernel side under
it: every switch site reads the value as off, or is off unset and turned to its other
side by the value, code the evidence weighed as what runs instead (pytorch/helion ef091f4:
benchmarks/run.py:1562 tests ``!= "none"``, examples/fp8_gemm.py:28 ``== "none"``, and the
library's Settings.autotune_effort reaches autotuning unless it is "none",
_compiler/backend.py:1151). A site on by default that reads the value as on, or an
undecided site, keeps the knob undecided.
"""

from __future__ import annotations

from dataclasses import replace

from scanner.model import GateKind, Knob, Polarity

_SWITCHES = (GateKind.BOOLEAN, GateKind.PRESENCE)


def split_off(knob: Knob, value: str) -> Knob | None:
    """``knob`` turned off by ``value``, the value its branches were followed with that leads
    away from the kernel, where its switch sites split on what turns them off and each
    either reads ``value`` as off or is off unset and turned by ``value`` to the side the
    evidence weighed; None for any other knob."""
    if knob.off_value is not None or knob.default_on is not True:
        return None
    if knob.kind not in _SWITCHES or knob.polarity is Polarity.DISABLE:
        return None
    if any(s.gate.kind is GateKind.UNKNOWN for s in knob.sites):
        return None
    switches = [s for s in knob.sites if s.gate.kind in _SWITCHES and s.default_on is not None]
    if len(switches) < 2:
        return None
    for site in switches:
        gate = site.gate
        if gate.polarity is Polarity.DISABLE:
            return None
        if value in gate.off_values:
            continue
        if site.default_on is False and value in gate.on_values:
            continue
        return None
    return replace(knob, off_value=value)
