"""The knobs a profile's select rules may pick, and what each rule may do to them.

A rule acts on a knob it selects only where the action is understood: the knob's role
is one it may touch (a rule that names neither roles nor knobs: kernel, determinism and
stack knobs, and knobs triaged breaks-bitwise), its gate is decided, one value turns every site of
it off, and turning it off does not mean setting a disable word of a knob that is no
kernel choice. Every other knob a rule would have picked is *left alone*, with why.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from fnmatch import fnmatchcase

from knobregistry.catalogue import Kind, for_name
from knobregistry.registry import KnobEntry, Registry, SelectRule, SetAction, Triage
from knobregistry.registry.feature import (
    Off,
    computed_off,
    feature_on_by_default,
    feature_values,
    knob_feature_on,
    launched_on,
    off_state,
    split_on_value,
    undecided_gate,
)
from knobregistry.registry.model import ExternalKnob
from scanner import Knob, Polarity, Role, ScanResult

FALLBACK_OFF = "0"
FALLBACK_ON = "1"
# The roles a rule that names none may act on (and knobs triaged breaks-bitwise).
RULE_ROLES = (Role.KERNEL, Role.DETERMINISM, Role.STACK)


class Why(str, Enum):
    """Why a rule left a knob it would have picked as the code has it."""

    UNDECIDED = "undecided"  # the scanner could not decide its gate
    UNKNOWN_ROLE = "unknown role"  # nobody knows what it controls
    NO_OFF_VALUE = "no single off value"  # its sites are turned off by different values
    DISABLE_WORD = "disable word"  # off would set the disable word of a knob that is no kernel
    PARTIAL = "part of a setting"  # it chooses with others, and not all of them would be set


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A knob a select rule may pick: registered, or found by a scan and not registered.

    Select rules speak of the feature the knob gates: ``default_on``, ``off`` and
    ``on`` are the feature's (a disable knob turns its feature off with its on value).
    """

    name: str
    default_on: bool | None  # the feature on by default? None: no switch; on/off rules skip it
    triage: Triage  # UNTRIAGED for a knob that is not registered
    registered: bool
    off: str | None  # what `set: off` writes; None: unset it (only unsetting turns it off)
    on: str | None
    polarity: Polarity = Polarity.ENABLE
    role: Role = Role.UNKNOWN
    role_reason: str | None = None
    undecided: str | None = None  # why its gate is undecided; None: decided
    off_known: bool = True  # False: no one value turns every site off
    # Undecided only for `off`: its sites disagree on what turns them off, and ``on`` turns
    # every one on (see feature.split_on_value), so `set: on` may write it.
    on_decided: bool = False
    # Undecided only for its state unset, which the run computes, where one value turns every
    # site off (see feature.computed_off): `set: off` may write it, whatever that state is.
    off_decided: bool = False
    deterministic: str | None = None  # what `set: deterministic` writes; None: nothing to write
    unset_required: bool = False  # `set: deterministic` unsets it (the catalogue: must stay unset)
    # Where the tree turns on a feature its code leaves off by default (a launcher's export).
    launched_on: str | None = None
    # The variables that choose a kernel with it, each with its value: all set, or none.
    together: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class LeftAlone:
    """A knob a rule would have picked and did not act on, and why."""

    name: str
    why: Why
    reason: str
    registered: bool


def knob_candidates(registry: Registry, scan: ScanResult | None) -> Iterator[Candidate]:
    """Every registered knob (file order), then every scanned knob not registered (by name).

    A registered knob's `default_on`, `polarity`, `off_value`, `on_value`, `role` and
    `undecided` win over the scan's; launch facts and undecided knobs found only by the
    scan are no switches.
    """
    for name, entry in registry.knobs.items():
        knob = scan.knob(name) if scan is not None else None
        yield _registered(name, entry, knob)
    for name, external in registry.external.items():
        if external.role is Role.STACK:
            yield _stack_setting(name, external)
    if scan is None:
        return
    for knob in scan.knobs:
        if knob.name in registry.knobs or knob.name in registry.external:
            continue
        scanned_off, off_known = _scanned_off(knob)
        off, on = feature_values(scanned_off, _scanned_on(knob), knob.polarity)
        yield Candidate(
            name=knob.name,
            default_on=knob_feature_on(knob),
            triage=Triage.UNTRIAGED,
            registered=False,
            off=off,
            on=on,
            polarity=knob.polarity,
            role=knob.role,
            role_reason=knob.role_reason,
            undecided=undecided_gate(knob),
            off_known=off_known,
            on_decided=split_on_value(knob) is not None,
            off_decided=computed_off(knob) is not None,
            deterministic=deterministic_value(knob.name),
            unset_required=must_stay_unset(knob.name),
            launched_on=launched_on(knob),
            together=knob.together,
        )


def must_stay_unset(name: str) -> bool:
    """Whether every catalogue entry for the variable ``name`` says it must stay unset."""
    values = {e.deterministic for e in for_name(name) if e.kind is Kind.VARIABLE and not e.shared}
    return values == {None}


def deterministic_value(name: str) -> str | None:
    """The value that makes the variable ``name`` deterministic: the catalogue's (None when
    its libraries disagree, when it must stay unset, or when the catalogue does not know it;
    the scanner's table of settings is generated from the catalogue)."""
    values = {e.deterministic for e in for_name(name) if e.kind is Kind.VARIABLE and not e.shared}
    if len(values) == 1:
        found = values.pop()
        return found if isinstance(found, str) else None
    return None


def _stack_setting(name: str, external: ExternalKnob) -> Candidate:
    """An external variable of role stack: a library reads it, the registry holds its value."""
    where = f" ({external.source})" if external.source else ""
    return Candidate(
        name=name,
        default_on=None,
        triage=Triage.UNTRIAGED,
        registered=True,
        off=None,
        on=None,
        role=Role.STACK,
        role_reason=f"the registry says so: a setting of {external.library or 'a library'}{where}",
        deterministic=external.deterministic,
        unset_required=external.must_stay_unset,
    )


def _registered(name: str, entry: KnobEntry, knob: Knob | None) -> Candidate:
    default_on = entry.default_on
    if default_on is None and knob is not None and entry.undecided is None:
        default_on = knob.default_on
    polarity = entry.polarity or (knob.polarity if knob is not None else Polarity.ENABLE)
    scanned_off, off_known = _scanned_off(knob)
    if entry.off_value is not None or entry.off_unset:
        scanned_off, off_known = entry.off_value, True
    off, on = feature_values(
        scanned_off,
        entry.on_value if entry.on_value is not None else _scanned_on(knob),
        polarity,
    )
    role, reason = _registered_role(entry, knob)
    return Candidate(
        name=name,
        default_on=feature_on_by_default(default_on, polarity),
        triage=entry.triage,
        registered=True,
        off=off,
        on=on,
        polarity=polarity,
        role=role,
        role_reason=reason,
        undecided=entry.undecided,
        off_known=off_known,
        on_decided=_on_decided(entry, knob),
        off_decided=_off_decided(entry, knob),
        deterministic=deterministic_value(name),
        unset_required=must_stay_unset(name),
        launched_on=entry.launched_on or launched_on(knob),
        together=entry.together,
    )


def _registered_role(entry: KnobEntry, knob: Knob | None) -> tuple[Role, str]:
    """A registered knob's role and why: the registry's (a person's, or knobs init's
    proposal), else the scan's proposal, else unknown."""
    if entry.role is not None and not entry.role_proposed:
        return entry.role, "the registry says so"
    if entry.role is not None:
        return entry.role, f"proposed: {entry.role_reason}"
    if knob is not None:
        return knob.role, f"the registry does not say; the scan proposes it: {knob.role_reason}"
    return Role.UNKNOWN, "the registry does not say its role"


def _on_decided(entry: KnobEntry, knob: Knob | None) -> bool:
    """Whether a knob registered undecided still has a decided on value: the registry
    states it (`knobs init` writes the one that turns every site on, where the sites
    disagree only on what turns them off), no recorded site is on by default, and the scan,
    where there is one, finds the same value."""
    if entry.undecided is None or entry.on_value is None or entry.polarity is Polarity.DISABLE:
        return False
    if entry.sites is not None and any(s.default_on is not False for s in entry.sites if s.switch):
        return False
    return knob is None or split_on_value(knob) == entry.on_value


def _off_decided(entry: KnobEntry, knob: Knob | None) -> bool:
    """Whether a knob registered undecided still has a decided value that turns its feature
    off: the registry states it (`knobs init` writes it where only the knob's state unset is
    computed by the run: the off value, or a disable knob's on value), and the scan, where
    there is one, finds the same value."""
    disable = entry.polarity is Polarity.DISABLE
    written = entry.on_value if disable else entry.off_value
    if entry.undecided is None or written is None:
        return False
    return knob is None or computed_off(knob) == written


def _scanned_off(knob: Knob | None) -> tuple[str | None, bool]:
    """The value that turns every switch site of the knob off (None: only unsetting does),
    and whether there is one; "0" with no scan to ask."""
    if knob is None:
        return FALLBACK_OFF, True
    state = off_state(knob)
    if state is Off.VALUE:
        return knob.off_value, True
    if state is Off.NO_SWITCH:
        return FALLBACK_OFF, True  # on/off rules do not select it
    return None, state is Off.UNSET  # a presence gate is off when unset


def _scanned_on(knob: Knob | None) -> str | None:
    """The value that turns the knob on; "1" when the scan names none."""
    if knob is not None and knob.on_value is not None:
        return knob.on_value
    return FALLBACK_ON


def conditions_hold(rule: SelectRule, candidate: Candidate) -> bool:
    """Whether the rule's name, state and triage conditions hold for ``candidate`` (its
    state is not asked of an undecided knob, whose state nobody knows)."""
    if rule.match and not any(fnmatchcase(candidate.name, p) for p in rule.match):
        return False
    if (
        rule.default_on is not None
        and candidate.undecided is None
        and candidate.default_on is not rule.default_on
        and not (rule.default_on and candidate.default_on is False and candidate.launched_on)
    ):
        return False
    if rule.triage and candidate.triage not in rule.triage:
        return False
    return candidate.triage not in rule.triage_not


def role_allowed(rule: SelectRule, candidate: Candidate) -> bool:
    """Whether the rule may act on a knob of the candidate's role and triage: a rule that
    names roles acts on those; one that names the knobs (`match`) or gives them back to
    the code (`set: default`) on any; any other on RULE_ROLES and breaks-bitwise."""
    if rule.role:
        return candidate.role in rule.role
    if rule.match or rule.set is SetAction.DEFAULT:
        return True
    return candidate.role in RULE_ROLES or candidate.triage is Triage.BREAKS_BITWISE


def pick(rule: SelectRule, candidate: Candidate) -> bool | LeftAlone:
    """True when ``rule`` sets ``candidate``; False when it does not pick it; a LeftAlone
    when it would have picked it and may not act on it."""
    if not conditions_hold(rule, candidate) or not _acts(rule, candidate):
        return False
    allowed = role_allowed(rule, candidate)
    if not allowed and (candidate.role is not Role.UNKNOWN or rule.set is not SetAction.OFF):
        return False  # a knob of unknown role counts as left alone where off would leave it on
    if not allowed:
        why, reason = Why.UNKNOWN_ROLE, candidate.role_reason or "nobody has said what it controls"
    elif candidate.undecided is not None and (
        (rule.set is SetAction.OFF and not candidate.off_decided)
        or (rule.set is SetAction.ON and not candidate.on_decided)
    ):
        why, reason = Why.UNDECIDED, candidate.undecided
    elif rule.set is SetAction.OFF and not candidate.off_known:
        why, reason = Why.NO_OFF_VALUE, "no single value turns every site of it off"
    elif (
        rule.set is SetAction.OFF
        and candidate.polarity is Polarity.DISABLE
        and candidate.role is not Role.KERNEL
    ):
        why = Why.DISABLE_WORD
        reason = (
            f"turning its feature off means setting {candidate.name} to {candidate.off!r}, a "
            f"disable word, and its role is {candidate.role.value}, not kernel"
        )
    else:
        return True
    return LeftAlone(candidate.name, why, reason, candidate.registered)


def _acts(rule: SelectRule, candidate: Candidate) -> bool:
    """Whether the action means something for the candidate: a deterministic value for a
    catalogue setting, on and off for a switch (or a knob whose gate nobody could decide)."""
    if rule.set is SetAction.DETERMINISTIC:
        return candidate.deterministic is not None or candidate.unset_required
    if rule.set is SetAction.DEFAULT:
        return True
    return candidate.default_on is not None or candidate.undecided is not None


def value(action: SetAction, candidate: Candidate) -> str | None:
    """What ``action`` writes for ``candidate``; None: unset it."""
    if action is SetAction.OFF:
        return candidate.off
    if action is SetAction.ON:
        return candidate.on
    if action is SetAction.DETERMINISTIC:
        return None if candidate.unset_required else candidate.deterministic
    return None
