"""The feature a knob gates: whether it is on by default, and the values that turn it off and on.

A knob's own verdict (``default_on``, ``off_value``, ``on_value``) is about the
variable: "on" is the on-like value. Its *polarity* says what that does to the
feature it names: ``enable`` (PRIMUS_HC_TRITON=1 turns the fusion on) or
``disable`` (X_DISABLE_FUSED=1 turns it off). Policies, select rules and the
bitwise check speak of the feature; this module is the one place that turns one
into the other.
"""

from __future__ import annotations

from enum import Enum
from typing import TypeVar

from scanner import GateKind, Knob, Language, Polarity, ReadKind
from scanner.suite_files import TEST_FILE

_V = TypeVar("_V")

SWITCHES = (GateKind.BOOLEAN, GateKind.PRESENCE)


def feature_on_by_default(default_on: bool | None, polarity: Polarity | None) -> bool | None:
    """Whether the feature is on when the variable is unset: the knob's own ``default_on``,
    read through its polarity (None for a value, a launch fact or an undecided gate)."""
    if default_on is None:
        return None
    return not default_on if polarity is Polarity.DISABLE else default_on


def knob_feature_on(knob: Knob) -> bool | None:
    """:func:`feature_on_by_default` of a scanned knob (None unless it is a switch, or a
    choice whose default reaches a kernel that another choice, its off value, does not)."""
    if is_choice(knob):
        return knob.default_on
    if knob.kind not in SWITCHES:
        return None
    return feature_on_by_default(knob.default_on, knob.polarity)


def is_choice(knob: Knob) -> bool:
    """Whether ``knob`` is a value that chooses a kernel: its code shows that unset it reaches
    one, and that its ``off_value`` (another choice, such as ``eager``) reaches none."""
    return knob.kind is GateKind.VALUE and knob.off_value is not None


def feature_values(knob_off: _V, knob_on: _V, polarity: Polarity | None) -> tuple[_V, _V]:
    """The values that turn the feature off and on (one value each, or all of them), from
    those that turn the knob off and on: a disable knob turns its feature off with its on
    value."""
    if polarity is Polarity.DISABLE:
        return knob_on, knob_off
    return knob_off, knob_on


def is_launch_fact(knob: Knob) -> bool:
    """Whether the scanner reports ``knob`` as set by the launcher (RANK, WORLD_SIZE):
    a fact of the run, never a switch."""
    return knob.kind is GateKind.LAUNCH


def is_undecided(knob: Knob) -> bool:
    """Whether the scanner could not decide what the knob's gate does (its kind is
    ``unknown``, or every site is): a person must read the code and register it."""
    if knob.kind is GateKind.UNKNOWN:
        return True
    return bool(knob.sites) and all(s.gate.kind is GateKind.UNKNOWN for s in knob.sites)


class Off(Enum):
    """What turns a scanned knob's switch sites off."""

    VALUE = "value"  # one value, the knob's off_value, at every site
    UNSET = "unset"  # only unsetting it (a presence gate)
    SPLIT = "split"  # different values at different sites: no single one
    NO_SWITCH = "no switch"  # it has no switch site


def off_state(knob: Knob) -> Off:
    """What turns the knob's switch sites off. As the scanner judges a knob, a switch site
    is one whose state when unset is known: a site that leaves that to the code is none."""
    if knob.off_value is not None:
        return Off.VALUE
    gates = [s.gate for s in knob.sites if s.gate.kind in SWITCHES and s.default_on is not None]
    if not gates:
        return Off.NO_SWITCH
    return Off.SPLIT if any(g.off_values for g in gates) else Off.UNSET


def split_on_value(knob: Knob) -> str | None:
    """The value that turns every site of ``knob`` on, where its sites disagree only on what
    turns them off (``if X.is_set(): return X.get()``: unsetting turns the first off, "0" the
    second) and each is off when unset: the knob is undecided for ``off``, not for ``on``.
    None when that is not the knob's case."""
    if is_undecided(knob) or off_state(knob) is not Off.SPLIT or knob.polarity is Polarity.DISABLE:
        return None
    on = knob.on_value
    if on is None or any(s.gate.kind is GateKind.UNKNOWN for s in knob.sites):
        return None
    switches = [s for s in knob.sites if s.gate.kind in SWITCHES and s.default_on is not None]
    for site in switches:
        gate = site.gate
        if site.default_on is not False or gate.polarity is Polarity.DISABLE:
            return None
        if on not in gate.on_values and gate.kind is not GateKind.PRESENCE:
            return None
    return on


def undecided_gate(knob: Knob) -> str | None:
    """Why no one switch can be written for the knob, or None: the scanner could not decide
    its gate, or its sites are turned off by different values (one tests `!= "0"`,
    another `!= "off"`). Such a knob is registered undecided, and no profile sets it."""
    if is_undecided(knob):
        return knob.reason or undecided_reason(knob)
    computed = computed_default(knob)
    if computed is not None:
        return computed
    if off_state(knob) is Off.SPLIT:
        switches = [s for s in knob.sites if s.gate.kind in SWITCHES and s.default_on is not None]
        where = ", ".join(f"{s.path}:{s.line}" for s in switches)
        return f"no single value turns every site off ({where})"
    return None


def computed_default(knob: Knob) -> str | None:
    """Why a switch is neither on nor off by default, where what it gives unset is
    computed when the code runs (``if f == "1": ... if f == "0": ... return auto()``); None
    for any other knob."""
    if knob.kind not in SWITCHES or knob.default_on is not None:
        return None
    sites = [s for s in knob.sites if s.gate.kind in SWITCHES and s.default_on is None]
    if not sites:
        return None
    where = ", ".join(f"{s.path}:{s.line}" for s in sites)
    return f"{sites[0].reason or 'on by default is not known'} ({where})"


def computed_off(knob: Knob) -> str | None:
    """The value that turns off the feature of a switch whose state unset the run computes
    (see :func:`computed_default`): the one every site's test reads as off (for a disable
    switch, as on), so writing it turns the feature off whatever the code would have
    computed. None for any other knob, and where some site's gate is undecided."""
    if computed_default(knob) is None:
        return None
    if any(s.gate.kind is GateKind.UNKNOWN for s in knob.sites):
        return None
    if knob.polarity is not Polarity.DISABLE:
        return knob.off_value
    on = knob.on_value
    switches = [s for s in knob.sites if s.gate.kind in SWITCHES]
    if on is None or not all(on in s.gate.on_values for s in switches):
        return None
    return on


def undecided_reason(knob: Knob) -> str:
    """Why the scanner could not decide, from the first undecided site (no path in it)."""
    for site in knob.sites:
        if site.gate.kind is GateKind.UNKNOWN and site.reason:
            return site.reason
    return knob.reason or "the scanner could not decide what its gate does"


# Reads that stop the run when the variable is unset: os.environ[N], shell ${N:?}, YAML ${N}.
_REQUIRED_READS = (ReadKind.SUBSCRIPT, ReadKind.REQUIRED)


def is_required(knob: Knob) -> bool:
    """Whether some code needs the variable set: a read that fails when it is unset
    (``os.environ[N]``, ``${N:?}``, YAML ``${N}``), or a gate that raises unless it
    holds given values. Such a variable is never unset by `--unset-others`."""
    if knob.kind is GateKind.REQUIREMENT:
        return True
    return any(s.kind in _REQUIRED_READS or s.gate.kind is GateKind.REQUIREMENT for s in knob.sites)


def launched_on(knob: Knob | None) -> str | None:
    """Where the tree itself turns on the feature of a knob its code leaves off by default:
    a write outside the tests (a launcher's ``export X=1``) or a launcher read whose own
    default (``${X:-fla}``) is a value every switch site of the code reads as on; None when
    nothing does, or the code's default is not off."""
    if knob is None or knob_feature_on(knob) is not False:
        return None
    gates = [s.gate for s in knob.sites if s.language is Language.PYTHON]
    if not gates or any(g.kind not in SWITCHES for g in gates):
        return None

    def turns_on(value: str) -> bool:
        on = all(value in g.on_values for g in gates)
        off = all(value in g.off_values for g in gates)
        return (on and knob.polarity is not Polarity.DISABLE) or (
            off and knob.polarity is Polarity.DISABLE
        )

    found = [
        (w.path, w.line, f"{w.path}:{w.line} sets it to {w.value!r}")
        for w in knob.set_by
        if w.value is not None and not TEST_FILE.search(w.path) and turns_on(w.value)
    ]
    found += [
        (s.path, s.line, f"{s.path}:{s.line} defaults it to {s.default!r}")
        for s in knob.sites
        if s.language is not Language.PYTHON
        and s.default is not None
        and not TEST_FILE.search(s.path)
        and turns_on(s.default)
    ]
    return min(found)[2] if found else None
