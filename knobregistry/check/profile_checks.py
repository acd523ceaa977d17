"""The profile checks of `knobs check` (KNB1xx): does each profile do what it promises?

Each profile is resolved from the registry alone, as `knobs export` writes it,
and held against the scan:

- KNB101: a `bitwise`-kind profile leaves on a kernel choice that is on by default (a
  knob on by default, or a `disable` knob off by default) and not triaged `reproducible`
  (nor `exempt`), or a knob triaged `breaks-bitwise`, registered or only scanned;
- KNB102: a profile sets a variable no scanned code reads and no `external` declares;
- KNB103: a value the scanned gate does not treat as the state it is meant to set
  (`"false"` on a gate that only tests `!= "0"` turns nothing off);
- KNB104 / KNB105: megatron config keys against megatron-core (profiles/config_checks.py);
- KNB106: a profile sets a switch that makes a launcher script set another variable,
  and gives that variable a different value;
- KNB107 / KNB108: torchtitan config keys against torchtitan (profiles/torchtitan_checks.py);
- KNB109 / KNB110: a `bitwise`-kind profile leaves a variable without the value code
  requires under a condition (deterministic mode), or sets one the code refuses
  (KNB110: under a condition the profile's config does not decide);
- KNB111: an `implied_by` of the registry that no scanned launcher write keeps true;
- KNB112: a `bitwise`-kind profile leaves on knobs triaged reproducible one at a time,
  and no recorded run had the profile as a whole (a warning);
- KNB113: a `bitwise`-kind profile does not set a catalogued determinism setting of a
  library the project uses (a note; stack_checks.py).
- KNB114: a launcher write sets a registered knob to the state (on or off) opposite to the
  one a `bitwise`-kind profile sets (a note; a computed value is never judged).
- KNB115: a launcher write sets a stack setting that a `bitwise`-kind profile unsets because
  the catalogue says it must stay unset (a note; stack_checks.py).

A knob a bitwise profile's own `verified` run had on (`knobs triage --search
fastest-bitwise --record`) is held by that run, whatever its single-knob triage says.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from knobregistry.check.codes import rule
from knobregistry.check.config_checks import FieldsLookup, megatron_key_diagnostics
from knobregistry.check.diagnostics import Diagnostic, Family
from knobregistry.check.family_check import Check, Context
from knobregistry.check.stack_checks import lacking, launcher_sets_unset, project_stack
from knobregistry.check.torchtitan_checks import TitanLookup, torchtitan_key_diagnostics
from knobregistry.check.where import Where
from knobregistry.profiles import Candidate, Intent, ResolvedProfile, knob_candidates
from knobregistry.profiles import resolve_profile as _resolve
from knobregistry.profiles.megatron import megatron_fields
from knobregistry.profiles.torchtitan import torchtitan_fields
from knobregistry.registry import KeyPath, ProfileKind, Registry, Triage, Verdict
from knobregistry.registry.feature import feature_values
from knobregistry.registry.model import JsonValue
from scanner import GateKind, Polarity, Role, ScanResult, Site

_HELD = (Triage.REPRODUCIBLE, Triage.EXEMPT)  # what a bitwise profile may leave on
BITWISE_LEAVES_ON = rule("KNB101")
UNKNOWN_VARIABLE = rule("KNB102")
GATE_MISMATCH = rule("KNB103")
CONTRADICTS_LAUNCHER = rule("KNB106")
MISSES_REQUIREMENT = rule("KNB109")
REQUIREMENT_UNDECIDED = rule("KNB110")
IMPLICATION_GONE = rule("KNB111")
NOT_RUN_TOGETHER = rule("KNB112")
LAUNCHER_OVERRIDES = rule("KNB114")


def check_profiles(
    registry: Registry,
    scan: ScanResult,
    *,
    cwd: Path | None = None,
    full_scope: bool = True,
    megatron: FieldsLookup = megatron_fields,
    torchtitan: TitanLookup = torchtitan_fields,
) -> list[Diagnostic]:
    """Every KNB1xx finding for ``registry``'s profiles, sorted; paths relative to ``cwd``.

    ``scan`` is the scan of the registry's scope (site paths relative to its folder).
    ``full_scope=False`` (paths on the command line narrowed the scan) skips KNB102,
    since a variable read outside the narrowed paths would look unread.
    """
    where = _Where(registry, cwd if cwd is not None else Path.cwd(), scan)
    found: list[Diagnostic] = []
    bitwise = any(p.kind is ProfileKind.BITWISE for p in registry.profiles.values())
    stack = project_stack(registry) if bitwise and full_scope else None
    for name, profile in registry.profiles.items():
        resolved = _resolve(registry, name)
        if profile.kind is ProfileKind.BITWISE:
            found.extend(_bitwise_holes(where, resolved, _resolve(registry, name, scan)))
            found.extend(_missed_requirements(where, resolved))
            found.extend(_not_run_together(where, resolved))
            if stack is not None:
                found.extend(lacking(where, resolved, stack))
            found.extend(_launcher_overrides(where, resolved))
            found.extend(launcher_sets_unset(where, resolved, scan))
        if full_scope:
            found.extend(_unknown_variables(where, name))
        found.extend(_gate_mismatches(where, resolved))
        found.extend(_launcher_contradictions(where, resolved))
    if full_scope:
        found.extend(_gone_implications(where))
    found.extend(megatron_key_diagnostics(registry, where.registry_file, megatron))
    found.extend(torchtitan_key_diagnostics(registry, where.registry_file, torchtitan))
    return sorted(found, key=lambda d: d.sort_key)


@dataclass(frozen=True, slots=True)
class _Where(Where):
    """Where, with the scan the profiles are held against."""

    scan: ScanResult


def _q(value: str) -> str:
    return json.dumps(value)


def _gates(where: _Where, name: str) -> list[Site]:
    knob = where.scan.knob(name)
    if knob is None:
        return []
    return [s for s in knob.sites if s.gate.kind is not GateKind.VALUE and s.default_on is not None]


def _bitwise_holes(
    where: _Where, resolved: ResolvedProfile, once_registered: ResolvedProfile
) -> Iterator[Diagnostic]:
    """``resolved`` is the profile as exported; ``once_registered`` as it would be with every
    scanned knob registered untriaged, which is what KNB001 asks for."""
    verified = _verified(where.registry, resolved.name)
    for candidate in knob_candidates(where.registry, where.scan):
        if candidate.default_on is not True or candidate.triage in _HELD:
            continue
        if candidate.role is not Role.KERNEL and candidate.triage is not Triage.BREAKS_BITWISE:
            continue  # the recipe touches only kernel choices, and what breaks bitwise
        if candidate.name in verified:
            continue  # the profile's own run had it on, with the rest, and stayed identical
        if not candidate.registered and _left_on(where, once_registered, candidate) is None:
            continue  # registering it (KNB001) is the whole fix: a select rule then covers it
        how = _left_on(where, resolved, candidate)
        if how is None:
            continue
        status = f"triaged '{candidate.triage.value}'" if candidate.registered else "not registered"
        source = resolved.sources.get(candidate.name)
        at: KeyPath = source.key_path if source is not None else ("profiles", resolved.name)
        subject = (
            f"on the feature that {candidate.name} disables"
            if candidate.polarity is Polarity.DISABLE
            else f"{candidate.name} on"
        )
        message = (
            f"profile '{resolved.name}' (kind bitwise) leaves {subject}: it is on by "
            f"default and {status}, and the profile {how}."
        )
        if _polarity_unstated(where, candidate):
            fix = (
                f"add `polarity: disable` to knobs.{candidate.name} (turning it on turns its "
                "feature off, so the feature is on by default); the profile's select rules "
                f"then see it, or set `{candidate.name}: {_q(candidate.off or '1')}` under "
                f"profiles.{resolved.name}.env."
            )
        elif candidate.off is None:
            fix = (
                f"only unsetting {candidate.name} turns it off: add a select rule "
                f"`{{match: [{candidate.name}], set: default}}` to profiles.{resolved.name}."
            )
        else:
            fix = f"set `{candidate.name}: {_q(candidate.off)}` under profiles.{resolved.name}.env."
        yield where.diagnostic(BITWISE_LEAVES_ON, at, message, fix, candidate.name)


def _verified(registry: Registry, name: str) -> frozenset[str]:
    """The knobs the profile's own `verified` run had on and found reproducible."""
    run = registry.profiles[name].verified
    if run is None or run.verdict is not Verdict.REPRODUCIBLE:
        return frozenset()
    return frozenset(run.combined_with)


def _not_run_together(where: _Where, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
    """KNB112: knobs left on on the strength of single-knob verdicts, never run together."""
    left_on = _reproducible_left_on(where, resolved)
    if len(left_on) < 2 or _run_as_a_whole(where, resolved.name, left_on):
        return
    name = resolved.name
    message = (
        f"profile '{name}' (kind bitwise) leaves on {len(left_on)} knobs triaged reproducible "
        f"one at a time ({', '.join(left_on)}), and no recorded run had them on together: "
        "knobs reproducible alone can break reproducibility together."
    )
    fix = (
        f"run `knobs triage --profile {name} --record -- COMMAND` (its baseline runs the "
        f"profile as a whole), or `knobs triage --profile {name} --search fastest-bitwise "
        "--record -- COMMAND`."
    )
    yield where.diagnostic(NOT_RUN_TOGETHER, ("profiles", name), message, fix, left_on[0])


def _reproducible_left_on(where: _Where, resolved: ResolvedProfile) -> list[str]:
    """The registered knobs, on by default and triaged reproducible, the profile leaves on."""
    return [
        c.name
        for c in knob_candidates(where.registry, None)
        if c.registered
        and c.default_on is True
        and c.triage is Triage.REPRODUCIBLE
        and _left_on(where, resolved, c) is not None
    ]


def _run_as_a_whole(where: _Where, name: str, left_on: list[str]) -> bool:
    """Whether the registry records a reproducible run with every knob of ``left_on`` on:
    the profile's own `verified` run (its knobs, and what the profile it started from
    left on), or any record of a triage started from the profile (a triage records
    nothing unless its baseline, the profile itself, was reproducible)."""
    registry = where.registry
    run = registry.profiles[name].verified
    if run is not None and run.verdict is Verdict.REPRODUCIBLE:
        covered = set(run.combined_with)
        base = run.profile
        if base is not None and base in registry.profiles and base != name:
            covered.update(_reproducible_left_on(where, _resolve(registry, base)))
        return set(left_on) <= covered
    return any(
        record.profile == name
        for knob in registry.knobs.values()
        if knob.evidence is not None
        for record in knob.evidence.records
    )


def _left_on(where: _Where, resolved: ResolvedProfile, candidate: Candidate) -> str | None:
    """How the profile leaves the knob on, or None when it turns it off (or KNB103 judges)."""
    name = candidate.name
    value = resolved.env.get(name)
    if value is None:
        if candidate.off is None:
            return None  # only unsetting turns this gate off
        source = resolved.sources.get(name)
        return f"unsets it ({source})" if source is not None else "does not set it"
    intent = resolved.intent(name)
    if intent is Intent.OFF:
        return None  # meant off: whether the gate agrees is KNB103's finding
    gates = _gates(where, name)
    if gates and all(value in _feature_off_values(s, candidate.polarity) for s in gates):
        return None
    if not gates and intent is None:
        return None  # a value the convention cannot judge, and no scan to ask
    return f"sets it to {_q(value)} ({resolved.sources[name]}), which keeps it on"


def _feature_off_values(site: Site, polarity: Polarity) -> tuple[str, ...]:
    """The values that turn a site's feature off: its gate's off values, or its on values
    for a disable knob."""
    off, _ = feature_values(site.gate.off_values, site.gate.on_values, polarity)
    return off


def _polarity_unstated(where: _Where, candidate: Candidate) -> bool:
    """A registered disable knob whose entry does not say so: the registry alone, as
    `knobs export` reads it, takes it for an enable knob."""
    entry = where.registry.knobs.get(candidate.name)
    return entry is not None and entry.polarity is None and candidate.polarity is Polarity.DISABLE


def _unknown_variables(where: _Where, profile: str) -> Iterator[Diagnostic]:
    registry = where.registry
    match = registry.scan.match
    for name in registry.profiles[profile].env:
        if where.scan.knob(name) is not None or name in registry.external:
            continue
        if name in registry.knobs:
            continue  # a registered knob no code reads is stale: KNB002 reports it
        if match and not any(fnmatchcase(name, p) for p in match):
            why = (
                f"which the scan does not inventory (scan.match: {', '.join(match)}) and no "
                "`external` entry declares"
            )
        else:
            why = "which no scanned code reads and no `external` entry declares"
        message = f"profile '{profile}' sets {name}, {why}; setting it changes nothing."
        known = {k.name for k in where.scan.knobs} | {*registry.external, *registry.knobs}
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
        rename = f"rename it to {close[0]}, or " if close else ""
        fix = (
            f"{rename}declare it under `external:` with the library that reads it "
            f"({name}: {{library: ..., description: ...}}), or remove it from "
            f"profiles.{profile}.env."
        )
        yield where.diagnostic(
            UNKNOWN_VARIABLE, ("profiles", profile, "env", name), message, fix, name
        )


def _gate_mismatches(where: _Where, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
    for name, value in resolved.env.items():
        source = resolved.sources[name]
        intent = resolved.gate_intent(name)
        if source.profile != resolved.name or intent is None:
            continue  # a parent's value is reported on the parent
        gates = _gates(where, name)
        wanted = [s.gate.off_values if intent is Intent.OFF else s.gate.on_values for s in gates]
        bad = [s for s, values in zip(gates, wanted, strict=True) if value not in values]
        if not bad:
            continue
        state = intent.value
        first = bad[0]
        good = first.gate.off_values if intent is Intent.OFF else first.gate.on_values
        shown = ", ".join(_q(v) for v in good) or "none: only unsetting the variable does"
        sites = f" (and {len(bad) - 1} more sites)" if len(bad) > 1 else ""
        message = (
            f"profile '{resolved.name}' sets {name} to {_q(value)} to turn it {state} "
            f"({source}), but the gate at {where.site(first)}{sites} does not treat "
            f"{_q(value)} as {state}; values that turn it {state} there: {shown}."
        )
        common = [v for v in good if all(v in values for values in wanted)]
        yield where.diagnostic(
            GATE_MISMATCH,
            source.key_path,
            message,
            _mismatch_fix(where, resolved, name, intent, common),
            name,
        )


def _mismatch_fix(
    where: _Where, resolved: ResolvedProfile, name: str, intent: Intent, common: list[str]
) -> str:
    if not common:
        return (
            f"no single value turns every site of {name} {intent.value}; make the gates in "
            "the code agree, or unset the variable with a `set: default` rule."
        )
    source = resolved.sources[name]
    if source.action is None:
        return f"write `{name}: {_q(common[0])}` under profiles.{resolved.name}.env."
    field = "off_value" if intent is Intent.OFF else "on_value"
    if name in where.registry.knobs:
        return f"set `{field}: {_q(common[0])}` in knobs.{name}, which {source} then writes."
    return f"register {name} under `knobs` with `{field}: {_q(common[0])}`."


def _launcher_contradictions(where: _Where, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
    """KNB106: the profile sets every variable of a launcher write's condition, and gives
    the variable written a value other than the launcher's."""
    env = resolved.env
    for write in where.scan.writes:
        name, implied = write.name, write.value
        if name is None or implied is None or not write.when or name not in env:
            continue
        if env[name] == implied or any(env.get(n) != v for n, v in write.when):
            continue
        source = resolved.sources[name]
        if source.profile != resolved.name:
            continue  # a parent's value is reported on the parent
        condition = " and ".join(f"{n}={_q(v)}" for n, v in write.when)
        message = (
            f"profile '{resolved.name}' sets {name} to {_q(env[name] or '')} ({source}), but "
            f"with {condition}, which it also sets, the launcher sets {name} to {_q(implied)} "
            f"at {where.site(write)}: the run gets whichever is applied last."
        )
        fix = (
            f"write `{name}: {_q(implied)}` under profiles.{resolved.name}.env (or remove it "
            f"and leave it to the launcher), or stop setting {', '.join(n for n, _ in write.when)}."
        )
        yield where.diagnostic(CONTRADICTS_LAUNCHER, source.key_path, message, fix, name)


def _launcher_overrides(where: _Where, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
    """KNB114: a launcher write puts a registered knob in the state opposite to the one the
    bitwise profile sets, at every gate of the code; a computed value is never judged."""
    env = resolved.env
    for name, value in env.items():
        knob = where.scan.knob(name)
        source = resolved.sources[name]
        if knob is None or name not in where.registry.knobs or value is None:
            continue
        parent = where.registry.profiles.get(source.profile)
        inherited = source.profile != resolved.name and parent is not None
        if inherited and parent is not None and parent.kind is ProfileKind.BITWISE:
            continue  # reported on the parent
        gates = _gates(where, name)
        wanted = _state(value, gates)
        if wanted is None:
            continue
        for write in knob.set_by:
            if write.value is None or write.value == value:
                continue  # a computed value is not known: never judged
            if write.when and all(n in env for n, _ in write.when):
                continue  # the profile decides the condition: KNB106's, or never written
            if _names_any(write.condition, env):
                continue  # a test of what the profile sets, which the check cannot evaluate
            got = _state(write.value, gates)
            if got is None or got == wanted:
                continue
            under = f" when {write.condition}" if write.condition else ""
            message = (
                f"profile '{resolved.name}' (kind bitwise) sets {name} to {_q(value)} "
                f"({source}), which the code reads as {wanted}, but the launcher at "
                f"{where.site(write)} sets it to {_q(write.value)}{under} ({write.kind.value}), "
                f"which the code reads as {got}: a run started through it has {name} {got}."
            )
            fix = (
                f"keep a value already set in the launcher (`{name}=${{{name}:-{write.value}}}`),"
                " or remove the write, or start the profile's runs another way."
            )
            yield where.diagnostic(LAUNCHER_OVERRIDES, source.key_path, message, fix, name)


def _names_any(condition: str | None, names: Mapping[str, object]) -> bool:
    """Whether a launcher condition's text mentions one of ``names``."""
    if not condition:
        return False
    return any(w in names for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", condition))


def _state(value: str, gates: list[Site]) -> str | None:
    """``off`` or ``on`` when every gate reads ``value`` so (None when they disagree, or
    none decides)."""
    if not gates:
        return None
    if all(value in s.gate.off_values for s in gates):
        return "off"
    if all(value in s.gate.on_values for s in gates):
        return "on"
    return None


def _missed_requirements(where: _Where, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
    """KNB109: a bitwise profile leaves a variable unset, or sets a value, that code of the
    scan refuses to run with; KNB110 when the code requires it only under a condition the
    profile's config does not decide."""
    for knob in where.scan.knobs:
        value = resolved.env.get(knob.name)
        required = [s for s in knob.sites if s.gate.kind is GateKind.REQUIREMENT]
        # A requirement that always holds is the run's set-up, which the recipe leaves to
        # the environment; one under a condition the profile turns on (deterministic
        # mode), or a value the profile sets, is the recipe's.
        missed = [
            s
            for s in required
            if value not in s.gate.on_values and (value is not None or s.gate.condition)
        ]
        applies = [(s, _holds(s.gate.condition, resolved.config)) for s in missed]
        applies = [(s, holds) for s, holds in applies if holds is not False]
        if not applies:
            continue
        first, holds = next(((s, h) for s, h in applies if h), applies[0])
        accepted = " or ".join(_q(v) for v in first.gate.on_values[:3])
        source = resolved.sources.get(knob.name)
        state = "leaves it unset" if value is None else f"sets it to {_q(value)} ({source})"
        when = f" when {first.gate.condition}" if first.gate.condition else ""
        message = (
            f"profile '{resolved.name}' (kind bitwise) {state}, but the code at "
            f"{where.site(first)} raises unless {knob.name} is {accepted}{when}"
        )
        if holds is None:
            message += ", which the profile's config does not decide."
        else:
            message += "."
        at: KeyPath = source.key_path if source is not None else ("profiles", resolved.name)
        wanted = _q(first.gate.on_values[0])
        fix = f"set `{knob.name}: {wanted}` under profiles.{resolved.name}.env."
        rule = MISSES_REQUIREMENT if holds else REQUIREMENT_UNDECIDED
        yield where.diagnostic(rule, at, message, fix, knob.name)


_TEST = re.compile(r"(?:[A-Za-z_][\w.]*\.)?([A-Za-z_]\w*)(?:\s*==\s*(['\"])(.*)\2)?")


def _holds(condition: str | None, config: Mapping[str, JsonValue]) -> bool | None:
    """Whether the profile's config meets a requirement's condition (``args.X``,
    ``args.X == "v"``, ``not (...)``, joined by ``and``); None when it cannot tell."""
    if condition is None:
        return True
    verdicts: list[bool | None] = []
    for part in condition.split(" and "):
        negated = part.startswith("not (") and part.endswith(")")
        test = _TEST.fullmatch(part[5:-1] if negated else part)
        if test is None or test.group(1) not in config:
            verdicts.append(None)
            continue
        value = config[test.group(1)]
        held = bool(value) if test.group(2) is None else str(value) == test.group(3)
        verdicts.append(held != negated)
    if False in verdicts:
        return False
    return None if None in verdicts else True


def _gone_implications(where: _Where) -> Iterator[Diagnostic]:
    """KNB111: an entry's `implied_by` that no scanned write under that condition keeps."""
    for name, entry in where.registry.external.items():
        if not entry.implied_by:
            continue
        wanted = set(entry.implied_by)
        if any(w.name == name and wanted <= set(w.when) for w in where.scan.writes):
            continue
        condition = " and ".join(f"{n}={_q(v)}" for n, v in entry.implied_by)
        message = (
            f"external.{name} is implied by {condition}, but no launcher script in the scan "
            f"writes {name} under that condition: a profile that leaves it to the launcher "
            "no longer gets it."
        )
        fix = (
            f"restate {name} in the profiles that need it and remove external.{name}."
            "implied_by, or add the launcher script that sets it to scan.paths."
        )
        at: KeyPath = ("external", name, "implied_by")
        yield where.diagnostic(IMPLICATION_GONE, at, message, fix, name)


def _run(context: Context) -> list[Diagnostic]:
    return check_profiles(
        context.registry, context.scan, cwd=context.cwd, full_scope=context.full_scope
    )


PROFILES = Check.of(Family.PROFILES, _run)
