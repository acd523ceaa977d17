"""What to run: the candidate knobs, the baseline, the alone and pair settings, and ddmin.

Candidates, by default, are the knobs the profile turns off (with `--knob`, the
named ones; with neither, every registered switch). The baseline is the profile as
it is exported, with every candidate off; each other setting turns some back on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from knobregistry._text.suggest import closest
from knobregistry.profiles import Intent, ProfileError, ResolvedProfile, resolve_profile
from knobregistry.profiles.candidates import knob_candidates
from knobregistry.registry import Registry, Sweep
from knobregistry.triage.model import Plan, Setting, TriageKnob


class PlanError(Exception):
    """A triage that cannot start: an unknown profile or knob, or no candidate at all."""


def make_plan(registry: Registry, profile: str | None, knobs: Sequence[str]) -> Plan:
    """The plan for ``profile`` (or none) and the ``knobs`` named on the command line."""
    switches = {c.name: c for c in knob_candidates(registry, None)}
    unknown = [name for name in knobs if name not in switches]
    if unknown:
        close = [c for c in (closest(n, switches, cutoff=0.8) for n in unknown) if c is not None]
        hint = f" Did you mean {_names(close)}?" if close else ""
        raise PlanError(
            f"{_names(unknown)} {'is' if len(unknown) == 1 else 'are'} not registered in "
            f"{registry.path.name}; fix the name, or register the knob first (`knobs check` "
            f"prints its entry).{hint}"
        )
    values = [name for name in knobs if switches[name].default_on is None]
    if values:
        raise PlanError(
            f"{_names(values)}: a value knob (default_on: null) has no on and off to compare; "
            "triage switches, or run the command with each value yourself."
        )
    try:
        resolved = resolve_profile(registry, profile) if profile is not None else None
    except ProfileError as exc:
        raise PlanError(str(exc)) from exc
    # The switches the profile already turns off: candidates by default, left as it sets them.
    off_in_profile = (
        {n for n in switches if _turned_off(resolved, n, switches[n].default_on)}
        if resolved is not None
        else set()
    )
    if knobs:
        chosen = sorted(set(knobs))
    elif resolved is not None:
        chosen = sorted(off_in_profile)
    else:
        chosen = sorted(n for n, c in switches.items() if c.default_on is not None)
    if not chosen:
        where = f"profile '{profile}' turns no knob off" if profile else "no knob is a switch"
        raise PlanError(f"nothing to triage: {where}; name knobs with --knob NAME.")
    candidates = tuple(TriageKnob(n, switches[n].on, switches[n].off) for n in chosen)
    env = dict(resolved.env) if resolved is not None else {}
    unset = set(resolved.unset) if resolved is not None else set()
    for knob in candidates:
        if knob.name in off_in_profile:
            continue  # the profile's own off value stays
        if knob.off is None:
            env.pop(knob.name, None)
            unset.add(knob.name)
        else:
            env[knob.name] = knob.off
            unset.discard(knob.name)
    return Plan(
        candidates=candidates,
        env=dict(sorted(env.items())),
        unset=tuple(sorted(unset)),
        profile=profile,
    )


def _turned_off(resolved: ResolvedProfile, name: str, default_on: bool | None) -> bool:
    if default_on is None:
        return False
    if name in resolved.unset:
        return default_on is False
    return name in resolved.env and resolved.intent(name) is Intent.OFF


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)


def baseline() -> Setting:
    return Setting(Sweep.BASELINE)


def alone(plan: Plan) -> list[Setting]:
    """One setting per candidate: just that knob back on."""
    return [Setting(Sweep.ALONE, (name,)) for name in plan.names]


def pairs(names: Sequence[str]) -> list[Setting]:
    """Every pair of ``names``, in order."""
    return [Setting(Sweep.PAIRS, pair) for pair in combinations(names, 2)]


def ddmin(items: Sequence[str], fails: Callable[[tuple[str, ...]], bool]) -> tuple[str, ...]:
    """A 1-minimal subset of ``items`` for which ``fails`` holds (Zeller's delta debugging).

    ``fails(items)`` must hold. Subsets keep the order of ``items``; no subset is
    tested twice. A test that could not run should count as not failing.
    """
    seen: dict[tuple[str, ...], bool] = {tuple(items): True}

    def test(subset: tuple[str, ...]) -> bool:
        if subset not in seen:
            seen[subset] = fails(subset)
        return seen[subset]

    current = tuple(items)
    n = 2
    while len(current) >= 2:
        chunks = _split(current, n)
        reduced = next((c for c in chunks if test(c)), None)
        if reduced is not None:
            current, n = reduced, 2
            continue
        if n > 2:  # with two chunks, each complement is the other chunk: tested already
            complements = [tuple(x for x in current if x not in chunk) for chunk in chunks]
            reduced = next((c for c in complements if test(c)), None)
            if reduced is not None:
                current, n = reduced, max(n - 1, 2)
                continue
        if n >= len(current):
            break
        n = min(2 * n, len(current))
    return current


def _split(items: tuple[str, ...], n: int) -> list[tuple[str, ...]]:
    """``items`` cut into ``n`` contiguous chunks whose sizes differ by at most one."""
    size, extra = divmod(len(items), n)
    chunks, start = [], 0
    for index in range(n):
        stop = start + size + (1 if index < extra else 0)
        chunks.append(items[start:stop])
        start = stop
    return chunks
