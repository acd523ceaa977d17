"""A profile resolved into concrete values: frozen records, and the on/off convention."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from knobregistry.profiles.candidates import LeftAlone, Why
from knobregistry.registry import KeyPath, ProfileKind, SetAction, format_key_path
from knobregistry.registry.model import JsonValue
from scanner import Role
from scanner.conventions import OFF_LIKE, ON_LIKE


class Intent(str, Enum):
    """What a value set by a profile is meant to do to a boolean gate, or to its feature."""

    OFF = "off"
    ON = "on"

    @property
    def opposite(self) -> Intent:
        """Off for on, on for off."""
        return Intent.ON if self is Intent.OFF else Intent.OFF


def intent_of(value: str) -> Intent | None:
    """The intent the convention gives a value: "0"/"false"/... off, "1"/"true"/... on."""
    folded = value.strip().lower()
    if folded in OFF_LIKE:
        return Intent.OFF
    if folded in ON_LIKE:
        return Intent.ON
    return None


class ProfileError(Exception):
    """A profile that cannot be resolved or exported; the CLI exits 2 with the message."""


@dataclass(frozen=True, slots=True)
class Source:
    """Which registry entry set a value: an explicit `env`/`config` entry or a select rule."""

    profile: str
    key_path: KeyPath  # ("profiles", "bitwise", "select", 0) or (..., "env", "NCCL_ALGO")
    action: SetAction | None = None  # the select rule's action; None for an explicit value

    def __str__(self) -> str:
        return format_key_path(self.key_path)

    @property
    def intent(self) -> Intent | None:
        """The state the rule asks for the feature (`set: off` / `set: on`); None otherwise."""
        if self.action is SetAction.OFF:
            return Intent.OFF
        if self.action is SetAction.ON:
            return Intent.ON
        return None


@dataclass(frozen=True, slots=True)
class CostLine:
    """What one value of a profile costs, from the registry's `cost` field."""

    subject: str  # `PRIMUS_HC_TRITON=0` or `deterministic_mode=true`
    text: str

    def render(self) -> str:
        return f"{self.subject}: {self.text}"


def measured_price(measured: tuple[tuple[str, float | None], ...]) -> str | None:
    """`Measured price of what it turns off: 1.95x ... (the product of ...); not measured:
    A, B.`, or None when no knob it turns off has a measurement."""
    known = [(name, ratio) for name, ratio in measured if ratio is not None]
    missing = [name for name, ratio in measured if ratio is None]
    if not known:
        return None
    each = ", ".join(f"{name} {ratio:.2f}x" for name, ratio in known)
    product = math.prod(ratio for _, ratio in known)
    parts = [f"{product:.2f}x the run time with them on (the product of {each})"]
    if missing:
        parts.append("not measured: " + ", ".join(missing))
    return "Measured price of what it turns off: " + "; ".join(parts) + "."


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolvedProfile:
    """A profile with its `extends` chain and select rules applied.

    ``env`` and ``config`` are sorted by name; ``unset`` lists the variables the
    profile unsets (`set: default`), sorted. ``sources`` says, for every name in
    ``env`` and ``unset``, which entry or rule decided it (the last one applied).
    ``disable`` lists the knobs of polarity `disable`: on turns their feature off.
    """

    name: str
    kind: ProfileKind
    description: str
    chain: tuple[str, ...]  # the extends chain, base first, ending with ``name``
    env: Mapping[str, str] = field(default_factory=dict)
    config: Mapping[str, JsonValue] = field(default_factory=dict)
    unset: tuple[str, ...] = ()
    costs: tuple[CostLine, ...] = ()
    # Each knob the profile turns off, with the slowdown `knobs triage --cost` measured
    # for that (None: not measured), in name order.
    measured: tuple[tuple[str, float | None], ...] = ()
    sources: Mapping[str, Source] = field(default_factory=dict)
    config_sources: Mapping[str, Source] = field(default_factory=dict)
    disable: frozenset[str] = frozenset()
    # The role of each knob a select rule set (explicit `env` values of other variables
    # have none), and the knobs a rule would have picked and left as the code has them.
    roles: Mapping[str, Role] = field(default_factory=dict)
    role_reasons: Mapping[str, str] = field(default_factory=dict)
    left: tuple[LeftAlone, ...] = ()
    # The knobs a rule set though their gate is undecided: only their state unset, which the
    # run computes, is not known, and the value written turns them off whatever it is.
    computed: tuple[str, ...] = ()

    @property
    def undecided(self) -> tuple[LeftAlone, ...]:
        """The knobs left alone because their gate is undecided."""
        return tuple(item for item in self.left if item.why is Why.UNDECIDED)

    @property
    def unknown_roles(self) -> tuple[LeftAlone, ...]:
        """The knobs left alone because nobody knows what they control."""
        return tuple(item for item in self.left if item.why is Why.UNKNOWN_ROLE)

    def intent(self, name: str) -> Intent | None:
        """What the value of ``name`` is meant to do to its feature: the rule's action,
        else the convention read through the knob's polarity."""
        source = self.sources.get(name)
        if source is not None and source.action is not None:
            return source.intent
        value = self.env.get(name)
        gate = intent_of(value) if value is not None else None
        return gate.opposite if gate is not None and name in self.disable else gate

    def gate_intent(self, name: str) -> Intent | None:
        """The state the value of ``name`` is meant to put its gate in (the knob itself,
        as the code reads it): :meth:`intent`, turned over for a disable knob."""
        feature = self.intent(name)
        return feature.opposite if feature is not None and name in self.disable else feature
