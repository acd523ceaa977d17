"""From sites to knobs: group by name, derive the knob-level verdict, flag conflicts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from scanner.interpret.values import OFF_ORDER, ON_ORDER
from scanner.model import GateKind, Knob, Site


def build_knobs(sites: Iterable[Site]) -> tuple[Knob, ...]:
    """One knob per variable name, sorted by name, sites sorted by position."""
    by_name: dict[str, list[Site]] = defaultdict(list)
    for site in sites:
        by_name[site.name].append(site)
    return tuple(
        _knob(name, sorted(by_name[name], key=lambda s: s.sort_key)) for name in sorted(by_name)
    )


def _knob(name: str, sites: list[Site]) -> Knob:
    gates = [s for s in sites if s.gate.kind is not GateKind.VALUE and s.default_on is not None]
    defaults_on = {s.default_on for s in gates}
    off = _common(OFF_ORDER, (s.gate.off_values for s in gates))
    on = _common(ON_ORDER, (s.gate.on_values for s in gates))
    reason: str | None = None
    if len(defaults_on) > 1:
        where_on = _where(s for s in gates if s.default_on)
        where_off = _where(s for s in gates if not s.default_on)
        reason = f"on by default at {where_on} but off by default at {where_off}"
    elif len(gates) > 1 and not off:
        valued = [s for s in gates if s.gate.off_values]
        if len(valued) == len(gates):
            reason = "no single value turns every site off"
        elif valued:
            reason = (
                f"only unsetting it turns off {_where(s for s in gates if not s.gate.off_values)}"
                f", while a value turns off {_where(valued)}"
            )
    else:
        values = [s for s in sites if s.gate.kind is GateKind.VALUE and s.default is not None]
        distinct = sorted({s.default for s in values if s.default is not None})
        if len(distinct) > 1:
            reason = "sites fall back to different defaults: " + ", ".join(
                f"{d!r} at {_where(s for s in values if s.default == d)}" for d in distinct
            )
    default_on = True if True in defaults_on else (False if False in defaults_on else None)
    return Knob(
        name=name,
        default_on=default_on,
        off_value=off[0] if off else None,
        on_value=on[0] if on else None,
        conflict=reason is not None,
        sites=tuple(sites),
        conflict_reason=reason,
    )


def _common(order: tuple[str, ...], value_sets: Iterable[tuple[str, ...]]) -> list[str]:
    common: set[str] | None = None
    for values in value_sets:
        common = set(values) if common is None else common & set(values)
    if not common:
        return []
    return [v for v in order if v in common]


def _where(sites: Iterable[Site]) -> str:
    return ", ".join(f"{s.path}:{s.line}" for s in sites)
