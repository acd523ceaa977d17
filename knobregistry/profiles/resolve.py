"""Resolve a profile: its `extends` chain, its select rules and its explicit values.

Precedence, from weakest to strongest: the base of the chain first, each profile
over the one it extends; inside one profile, its select rules in order (a later
rule wins), then its explicit `env` and `config` entries.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from types import MappingProxyType

from knobregistry._text.suggest import closest
from knobregistry.profiles.candidates import (
    Candidate,
    LeftAlone,
    Why,
    knob_candidates,
    pick,
)
from knobregistry.profiles.candidates import value as rule_value
from knobregistry.profiles.model import (
    CostLine,
    Intent,
    ProfileError,
    ResolvedProfile,
    Source,
)
from knobregistry.registry import KnobEntry, Registry, SetAction
from knobregistry.registry.feature import feature_on_by_default
from knobregistry.registry.model import JsonValue
from scanner import Polarity, ScanResult


def resolve_profile(
    registry: Registry, name: str, scan: ScanResult | None = None
) -> ResolvedProfile:
    """Resolve the profile ``name``; with ``scan``, select rules also see unregistered knobs.

    Raises ProfileError when no profile has that name.
    """
    if name not in registry.profiles:
        raise ProfileError(unknown_profile(registry, name))
    chain = profile_chain(registry, name)
    candidates = tuple(knob_candidates(registry, scan))
    disable = frozenset(c.name for c in candidates if c.polarity is Polarity.DISABLE)
    env: dict[str, str | None] = {}
    sources: dict[str, Source] = {}
    config: dict[str, JsonValue] = {}
    config_sources: dict[str, Source] = {}
    left: dict[str, LeftAlone] = {}
    for member in chain:
        profile = registry.profiles[member]
        for index, rule in enumerate(profile.select):
            source = Source(member, ("profiles", member, "select", index), rule.set)
            for candidate in candidates:
                picked = pick(rule, candidate)
                if picked is True:
                    env[candidate.name] = rule_value(rule.set, candidate)
                    sources[candidate.name] = source
                elif isinstance(picked, LeftAlone):
                    left.setdefault(candidate.name, picked)
        for var, given in profile.env.items():
            env[var] = given
            sources[var] = Source(member, ("profiles", member, "env", var))
        for key, setting in profile.config.items():
            config[key] = setting
            config_sources[key] = Source(member, ("profiles", member, "config", key))
    _all_or_none(candidates, env, sources, left)
    values = {k: v for k, v in sorted(env.items()) if v is not None}
    settings = dict(sorted(config.items()))
    profile = registry.profiles[name]
    resolved = ResolvedProfile(
        name=name,
        kind=profile.kind,
        description=profile.description,
        chain=chain,
        env=MappingProxyType(values),
        config=MappingProxyType(settings),
        unset=tuple(sorted(k for k, v in env.items() if v is None)),
        sources=MappingProxyType(dict(sorted(sources.items()))),
        config_sources=MappingProxyType(dict(sorted(config_sources.items()))),
        disable=disable,
        roles=MappingProxyType({c.name: c.role for c in candidates if c.name in env}),
        role_reasons=MappingProxyType(
            {c.name: reason for c in candidates if c.name in env and (reason := _reason(c))}
        ),
        left=tuple(left[n] for n in sorted(left) if n not in env),
        computed=tuple(sorted(c.name for c in candidates if _set_off_computed(c, values, sources))),
    )
    return replace(
        resolved,
        costs=tuple(cost_lines(registry, resolved)),
        measured=tuple(_measured(registry, resolved)),
    )


def _all_or_none(
    candidates: tuple[Candidate, ...],
    env: dict[str, str | None],
    sources: dict[str, Source],
    left: dict[str, LeftAlone],
) -> None:
    """Variables that choose a kernel together (``Candidate.together``): where the rules
    would not set every one of them to the setting's value, what the rules set of them is
    taken back and left as the code has it (a part of the setting may be none of the
    code's choices: megatron-core asserts on it). A value a profile gives by name stays."""
    registered = {c.name: c.registered for c in candidates}
    for candidate in candidates:
        pairs = candidate.together
        if not pairs or all(env.get(name, ...) == value for name, value in pairs):
            continue
        setting = ", ".join(f"{name}={value}" for name, value in pairs)
        for name, _ in pairs:
            source = sources.get(name)
            if name not in env or source is None or source.action is None:
                continue
            del env[name], sources[name]
            left[name] = LeftAlone(
                name,
                Why.PARTIAL,
                f"it chooses a kernel with the others of {setting}, which the profile's "
                "rules would not all set so: all of it, or none",
                registered.get(name, False),
            )


def _set_off_computed(
    candidate: Candidate, values: dict[str, str], sources: dict[str, Source]
) -> bool:
    """Whether a rule turned off a knob whose state unset the run computes."""
    source = sources.get(candidate.name)
    return (
        candidate.undecided is not None
        and candidate.off_decided
        and candidate.name in values
        and source is not None
        and source.action is SetAction.OFF
    )


def _reason(candidate: Candidate) -> str | None:
    """Why the candidate has its role, where the tree turns it on when its code does not, and
    that its value turns it off whatever the run computes unset."""
    if candidate.undecided is not None and candidate.off_decided:
        computed = f"{candidate.undecided}; {candidate.off!r} turns it off whatever it is"
        return f"{candidate.role_reason}; {computed}" if candidate.role_reason else computed
    if candidate.launched_on is None or candidate.default_on is not False:
        return candidate.role_reason
    launched = f"off by default in its code, but {candidate.launched_on}"
    return f"{candidate.role_reason}; {launched}" if candidate.role_reason else launched


# What an unknown profile's message offers when the registry has no profile at all.
BITWISE_SNIPPET = (
    "profiles:",
    "  bitwise:",
    "    description: Bit-for-bit reproducible runs.",
    "    kind: bitwise",
    "    select:",
    "      - role: kernel",
    "        default_on: true",
    "        triage_not: [reproducible, exempt]",
    '        set: "off"',
    "      - triage: breaks-bitwise",
    '        set: "off"',
    "      - role: determinism",
    '        set: "on"',
    "      - role: stack",
    "        set: deterministic",
)


def unknown_profile(registry: Registry, name: str) -> str:
    """The message for a profile name the registry does not define: a did-you-mean, the
    profiles there are, or (when there are none) the YAML that adds a bitwise one."""
    where = registry.path.name
    if not registry.profiles:
        snippet = "\n".join(f"    {line}" for line in BITWISE_SNIPPET)
        return (
            f"no profile is named '{name}': {where} defines no profiles. Add one at the end "
            f"of it, for example:\n{snippet}"
        )
    known = ", ".join(registry.profiles)
    close = closest(name, registry.profiles)
    hint = f" Did you mean '{close}'?" if close is not None else ""
    return f"no profile is named '{name}'; the profiles are: {known}.{hint}"


def profile_chain(registry: Registry, name: str) -> tuple[str, ...]:
    """``name`` and the profiles it extends, base first."""
    chain = [name]
    while (parent := registry.profiles[chain[-1]].extends) is not None:
        if parent in chain or parent not in registry.profiles:
            raise ProfileError(f"profile '{chain[-1]}' extends '{parent}', which cannot be used.")
        chain.append(parent)
    return tuple(reversed(chain))


def _measured(registry: Registry, resolved: ResolvedProfile) -> Iterator[tuple[str, float | None]]:
    """Each registered knob whose feature the profile turns off, with its measured
    slowdown (`cost.measured.off_over_on`, None when not measured)."""
    for name, value in resolved.env.items():
        knob = registry.knobs.get(name)
        if knob is None or knob.default_on is None:
            continue
        if _knob_changes(value, knob, resolved.intent(name)):
            yield name, knob.measured.off_over_on if knob.measured is not None else None


def cost_lines(registry: Registry, resolved: ResolvedProfile) -> Iterator[CostLine]:
    """The registry's `cost` of every value that moves a variable or key off its default.

    A knob's `cost` is what turning its feature off costs, so a value that turns a
    feature on (TOY_FUSED_SDPA=1 on a fusion off by default) shows none."""
    for name, value in resolved.env.items():
        knob = registry.knobs.get(name)
        external = registry.external.get(name)
        if knob is not None and knob.cost and _knob_changes(value, knob, resolved.intent(name)):
            yield CostLine(f"{name}={value}", knob.cost)
        elif external is not None and external.cost and value != external.default:
            yield CostLine(f"{name}={value}", external.cost)
    for key, setting in resolved.config.items():
        entry = registry.config.get(key)
        if entry is None or not entry.cost:
            continue
        if not entry.has_default or not _same(setting, entry.default):
            yield CostLine(f"{key}={_show(setting)}", entry.cost)


def _knob_changes(value: str, knob: KnobEntry, feature: Intent | None) -> bool:
    """Whether ``value`` moves the knob off its default towards what its `cost` prices:
    its feature turned off (a value knob: any other value)."""
    if feature is Intent.ON:
        return False
    if knob.default is not None:
        return value != knob.default
    if knob.default_on is not None and feature is not None:
        return feature_on_by_default(knob.default_on, knob.polarity) is not False
    return True


def _same(a: JsonValue, b: JsonValue) -> bool:
    return type(a) is type(b) and a == b


def _show(value: JsonValue) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
