"""From sites to knobs: group by name, derive the knob-level verdict, flag conflicts.

A knob is a launch fact if launchers set it; a switch (boolean or presence)
when a site decides a branch with it; unknown when a site could not be decided
and none was; a requirement when a site raises unless it holds given values;
a value otherwise. Only switch sites that really disagree are a
conflict: two sites judged by the on/off convention with different defaults on,
or sites whose written defaults differ so that one is on and one off by default.
Conditions on other strings (``== "DEBUG"`` here, ``in ("DEBUG", "INFO")`` there)
ask different questions of one value, and do not conflict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from scanner.conventions import EMPTY, OFF_WORDS, ON_WORDS, PAIRS
from scanner.interpret.classify import COMPUTED_UNSET
from scanner.model import GateKind, Knob, Polarity, ReadKind, Site, Write, WriteKind

_SWITCHES = (GateKind.BOOLEAN, GateKind.PRESENCE)
# Reads that give None unset (os.environ.get(N), os.getenv(N)) where os.environ[N] raises.
_FALLS_BACK = (ReadKind.GET, ReadKind.GETENV)
OFF_ORDER = (*OFF_WORDS, EMPTY, *ON_WORDS)
ON_ORDER = (*ON_WORDS, *OFF_WORDS, EMPTY)


def build_knobs(sites: Iterable[Site]) -> tuple[Knob, ...]:
    """One knob per variable name, sorted by name, sites sorted by position."""
    by_name: dict[str, list[Site]] = defaultdict(list)
    for site in sites:
        by_name[site.name].append(site)
    return tuple(
        _knob(name, sorted(by_name[name], key=lambda s: s.sort_key)) for name in sorted(by_name)
    )


# Writes that take a variable away rather than set it.
_REMOVALS = frozenset({WriteKind.POP, WriteKind.DELETE, WriteKind.UNSETENV, WriteKind.UNSET})


def link_writes(knobs: Iterable[Knob], writes: Sequence[Write]) -> tuple[Knob, ...]:
    """``knobs``, each with the launcher writes (``Write.launches``) that set it."""
    setting: dict[str, list[Write]] = defaultdict(list)
    for write in writes:
        if write.name is not None and write.launches and write.kind not in _REMOVALS:
            setting[write.name].append(write)
    return tuple(
        replace(k, set_by=tuple(sorted(setting[k.name], key=lambda w: w.sort_key)))
        if k.name in setting
        else k
        for k in knobs
    )


def by_convention(site: Site) -> bool:
    """Whether a switch site was judged by an on word against its off word."""
    gate = site.gate
    return any(on in gate.on_values and off in gate.off_values for on, off in PAIRS)


def _knob(name: str, sites: list[Site]) -> Knob:
    switches = [s for s in sites if s.gate.kind in _SWITCHES and s.default_on is not None]
    if not switches:  # a switch whose unset value the run computes: its off value is known
        switches = [
            s
            for s in sites
            if s.gate.kind in _SWITCHES
            and s.gate.off_values
            and (s.default is not None or s.kind in _FALLS_BACK)
            and s.gate.reason == COMPUTED_UNSET
        ]
    undecided = [s for s in sites if s.gate.kind is GateKind.UNKNOWN]
    kind = _kind(sites, switches, undecided)
    polarity = (
        Polarity.DISABLE if any(s.polarity is Polarity.DISABLE for s in sites) else Polarity.ENABLE
    )
    if kind is GateKind.LAUNCH:
        return Knob(
            name=name,
            default_on=None,
            off_value=None,
            on_value=None,
            conflict=False,
            sites=tuple(sites),
            kind=kind,
            polarity=polarity,
        )
    # The first site's off word first (`== true` is turned off by "false", not "0").
    first_off = [v for v in switches[0].gate.off_values[:1] if v in OFF_WORDS] if switches else []
    off = _common((*first_off, *OFF_ORDER), (s.gate.off_values for s in switches))
    required = [s for s in sites if s.gate.kind is GateKind.REQUIREMENT]
    on = _common(ON_ORDER, (s.gate.on_values for s in switches or required))
    conflict = _conflict(switches, off)
    defaults_on = {s.default_on for s in switches}
    default_on = True if True in defaults_on else (False if False in defaults_on else None)
    reason = None
    if undecided:
        first = undecided[0]
        reason = f"{first.reason} ({_where(undecided)})"
    elif kind is GateKind.VALUE:
        reason = _defaults(sites)
    return Knob(
        name=name,
        default_on=default_on,
        off_value=off[0] if off else None,
        on_value=on[0] if on else None,
        conflict=conflict is not None,
        sites=tuple(sites),
        conflict_reason=conflict,
        kind=kind,
        polarity=polarity,
        reason=reason,
    )


def _kind(sites: list[Site], switches: list[Site], undecided: list[Site]) -> GateKind:
    if any(s.gate.kind is GateKind.LAUNCH for s in sites):
        return GateKind.LAUNCH
    if switches:
        if any(s.gate.kind is GateKind.BOOLEAN for s in switches):
            return GateKind.BOOLEAN
        return GateKind.PRESENCE
    if undecided:
        return GateKind.UNKNOWN
    if any(s.gate.kind is GateKind.REQUIREMENT for s in sites):
        return GateKind.REQUIREMENT
    return GateKind.VALUE


def _conflict(switches: list[Site], off: list[str]) -> str | None:
    """Why the switch sites disagree, or None."""
    on_sites = [s for s in switches if s.default_on]
    off_sites = [s for s in switches if not s.default_on]
    for here in on_sites:
        for there in off_sites:
            words = by_convention(here) and by_convention(there)
            if words or (here.default is not None and here.default != there.default):
                return (
                    f"on by default at {_where(on_sites)} but off by default at {_where(off_sites)}"
                )
    if len(switches) > 1 and not off:
        valued = [s for s in switches if s.gate.off_values]
        if len(valued) == len(switches):
            return "no single value turns every site off"
        if valued:
            unset_only = _where(s for s in switches if not s.gate.off_values)
            by_value = _where(valued)
            return f"only unsetting it turns off {unset_only}, while a value turns off {by_value}"
    return None


def _defaults(sites: list[Site]) -> str | None:
    """A value knob whose sites fall back to different defaults: worth a note (two block
    sizes), though no switch disagrees."""
    distinct = sorted({s.default for s in sites if s.default is not None})
    if len(distinct) < 2:
        return None
    return "sites fall back to different defaults: " + ", ".join(
        f"{d!r} at {_where(s for s in sites if s.default == d)}" for d in distinct
    )


def _common(order: tuple[str, ...], value_sets: Iterable[tuple[str, ...]]) -> list[str]:
    common: set[str] | None = None
    for values in value_sets:
        common = set(values) if common is None else common & set(values)
    if not common:
        return []
    return [v for v in order if v in common] + sorted(common.difference(order))


def _where(sites: Iterable[Site]) -> str:
    return ", ".join(f"{s.path}:{s.line}" for s in sites)
