"""What the profile rules (KNB1xx) share: the registry's places with the scan the profiles are
held against, and how a profile leaves a knob's gates."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knobregistry.check.where import Where
from scanner import GateKind

if TYPE_CHECKING:
    from knobregistry.profiles import Candidate, ResolvedProfile
    from scanner import Polarity, ScanResult, Site


@dataclass(frozen=True, slots=True)
class ProfileWhere(Where):
    """Where, with the scan the profiles are held against."""

    scan: ScanResult


def quote(value: str) -> str:
    """``value`` as a JSON string, as the messages quote values."""
    return json.dumps(value)


def gate_sites(where: ProfileWhere, name: str) -> list[Site]:
    """The sites of knob ``name`` whose gate is a switch with a known default."""
    knob = where.scan.knob(name)
    if knob is None:
        return []
    return [s for s in knob.sites if s.gate.kind is not GateKind.VALUE and s.default_on is not None]


def left_on(where: ProfileWhere, resolved: ResolvedProfile, candidate: Candidate) -> str | None:
    """How the profile leaves the knob on, or None when it turns it off (or KNB103 judges)."""
    from knobregistry.profiles import Intent

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
    gates = gate_sites(where, name)
    if gates and all(value in feature_off_values(s, candidate.polarity) for s in gates):
        return None
    if not gates and intent is None:
        return None  # a value the convention cannot judge, and no scan to ask
    return f"sets it to {quote(value)} ({resolved.sources[name]}), which keeps it on"


def feature_off_values(site: Site, polarity: Polarity) -> tuple[str, ...]:
    """The values that turn a site's feature off: its gate's off values, or its on values
    for a disable knob."""
    from knobregistry.registry.feature import feature_values

    off, _ = feature_values(site.gate.off_values, site.gate.on_values, polarity)
    return off
