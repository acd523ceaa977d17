"""A baseline that keeps on a knob the registry records as breaking bitwise reproducibility.

Every setting of such a sweep runs with that knob on, so every setting differs through
it, and knobs reproducible alone would be judged breaking. Triage refuses to start one
unless a profile defines the baseline or the user allows it (--allow-known-breaking).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from knobregistry.profiles.candidates import Candidate, knob_candidates
from knobregistry.registry import ProfileKind, Registry, Triage
from knobregistry.triage.model import Plan
from knobregistry.triage.plan import baseline


@dataclass(frozen=True, slots=True)
class KeptOn:
    """A knob triaged breaks-bitwise that the baseline keeps on, and how to turn it off."""

    name: str
    off: str | None  # the value that turns it off; None: unset it

    @property
    def fix(self) -> str:
        return f"unset {self.name}" if self.off is None else f"{self.name}={self.off}"


def kept_on(registry: Registry, plan: Plan, environment: Mapping[str, str]) -> list[KeptOn]:
    """The registered switches triaged breaks-bitwise that the baseline of ``plan`` keeps
    on over ``environment``, by name. A value that is neither the knob's on nor its off
    value is not counted: what it does is not known."""
    env = plan.environment(baseline(), environment)
    candidates = set(plan.names)
    return sorted(
        (
            KeptOn(c.name, c.off)
            for c in knob_candidates(registry, None)
            if c.registered
            and c.triage is Triage.BREAKS_BITWISE
            and c.name not in candidates
            and _on(c, env.get(c.name))
        ),
        key=lambda k: k.name,
    )


def _on(knob: Candidate, value: str | None) -> bool:
    if value is None:
        return knob.default_on is True
    return value == knob.on and value != knob.off


def refusal(registry: Registry, registry_shown: str, knobs: list[KeptOn]) -> str:
    """Why the sweep does not start, and the three ways to start it."""
    names = ", ".join(k.name for k in knobs)
    one = len(knobs) == 1
    bitwise = sorted(p.name for p in registry.profiles.values() if p.kind is ProfileKind.BITWISE)
    profile = f"--profile {bitwise[0]}" if bitwise else "--profile NAME"
    return (
        f"the baseline keeps {names} on, which {registry_shown} records as breaks-bitwise: "
        f"{'it differs' if one else 'they differ'} from run to run in every setting, so knobs "
        "reproducible alone would be judged breaking. Start from a profile that turns "
        f"{'it' if one else 'them'} off ({profile}), turn {'it' if one else 'them'} off "
        f"({', '.join(k.fix for k in knobs)}), or triage with {'it' if one else 'them'} on "
        "as asked (--allow-known-breaking)."
    )
