"""KNB101 BitwiseLeavesKnobOn: a bitwise profile that leaves on a default-on kernel choice not
triaged reproducible, or a knob triaged breaks-bitwise, registered or only scanned.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import PROFILE, example, profiles
from knobregistry.check.profile_where import ProfileWhere, left_on, quote
from scanner import Polarity, Role

if TYPE_CHECKING:
    from knobregistry.profiles import Candidate, ResolvedProfile
    from knobregistry.registry import KeyPath, Registry

# KNB101's section of docs/profiles.md, below its heading (the site renders it there).
KNB101_SECTION = """\
A profile of `kind: bitwise` must turn off every kernel choice that is on by
default (a `kernel` knob on by default, or a `disable` one off by default) and not
triaged `reproducible`, and every knob triaged `breaks-bitwise` whatever its role
(an `exempt` knob is a deliberate waiver and is not held). Knobs of other roles
(what is trained, checks, launch steps) are the run's, not the recipe's; a
registered knob whose entry states no role is held by the role the scan proposes
(the fix may then be to write that role, so the profile's rule covers it). It is reported when the profile does not set the knob, unsets it, or sets
a value that keeps the feature on. A registered `disable` knob whose entry lacks
`polarity: disable` is such a hole (the registry alone takes it for an `enable`
knob off by default), and the fix says to add it.

That includes a knob the scan finds that is not registered at all, the newly
added fusion that PRIMUS_DETERMINISTIC and deterministic_mode do not reach, when
registering it would not close the hole. When a select rule such as
`{default_on: true, triage_not: reproducible, set: "off"}` will turn the knob off
once it is registered, KNB001 alone reports it: registering it (its role included)
is the whole fix.
A bitwise profile written by hand, with no such rule:

```
registry.yaml:430:3: KNB101 error: profile 'bitwise' (kind bitwise) leaves PRIMUS_MHC_TRITON on: it is on by default and not registered, and the profile does not set it.
    set `PRIMUS_MHC_TRITON: "0"` under profiles.bitwise.env.
```

Fix: set the knob off in the profile, or add such a select rule; then register
and triage it.
"""  # noqa: E501

KNB101 = Rule(
    code="KNB101",
    name="BitwiseLeavesKnobOn",
    title="A bitwise profile leaves on a default-on kernel knob that is not triaged reproducible.",
    description=(
        "A profile of kind `bitwise` promises a bitwise-reproducible run, yet leaves on a "
        "kernel choice that is on by default (a knob on by default, or a `disable` knob "
        "off by default) and not triaged `reproducible`, or a knob triaged "
        "`breaks-bitwise`: the hole a newly added fusion opens. Knobs of other roles "
        "(what is trained, checks, launch steps) are the run's, not the recipe's. "
        "Reported at the profile in the registry."
    ),
    example=(
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        "    env: {}    # PRIMUS_HC_TRITON (on by default, breaks-bitwise) left on"
    ),
    examples=example(
        PROFILE,
        invalid={"registry.yaml": profiles().replace('      PRIMUS_HC_TRITON: "0"\n', "")},
        valid={},
    ),
    page="profiles.md",
    section=KNB101_SECTION,
    family=Family.PROFILES,
    help=(
        "Set the knob to the value that turns its feature off in the profile (a `disable` "
        "knob's on value), or add a select rule that covers it (role: kernel, "
        "default_on: true, triage_not: reproducible, set: off); or triage it; or, if it "
        "is no kernel choice, register its role."
    ),
)


def bitwise_holes(
    where: ProfileWhere, resolved: ResolvedProfile, once_registered: ResolvedProfile
) -> Iterator[Diagnostic]:
    """``resolved`` is the profile as exported; ``once_registered`` as it would be with every
    scanned knob registered untriaged, which is what KNB001 asks for."""
    from knobregistry.profiles import knob_candidates
    from knobregistry.registry import Triage

    held = (Triage.REPRODUCIBLE, Triage.EXEMPT)  # what a bitwise profile may leave on

    verified = _verified(where.registry, resolved.name)
    for candidate in knob_candidates(where.registry, where.scan):
        if candidate.default_on is not True or candidate.triage in held:
            continue
        if candidate.role is not Role.KERNEL and candidate.triage is not Triage.BREAKS_BITWISE:
            continue  # the recipe touches only kernel choices, and what breaks bitwise
        if candidate.name in verified:
            continue  # the profile's own run had it on, with the rest, and stayed identical
        if not candidate.registered and left_on(where, once_registered, candidate) is None:
            continue  # registering it (KNB001) is the whole fix: a select rule then covers it
        how = left_on(where, resolved, candidate)
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
                f"then see it, or set `{candidate.name}: {quote(candidate.off or '1')}` under "
                f"profiles.{resolved.name}.env."
            )
        elif candidate.off is None:
            fix = (
                f"only unsetting {candidate.name} turns it off: add a select rule "
                f"`{{match: [{candidate.name}], set: default}}` to profiles.{resolved.name}."
            )
        else:
            wanted = quote(candidate.off)
            fix = f"set `{candidate.name}: {wanted}` under profiles.{resolved.name}.env."
        yield where.diagnostic(KNB101, at, message, fix, candidate.name)


def _verified(registry: Registry, name: str) -> frozenset[str]:
    """The knobs the profile's own `verified` run had on and found reproducible."""
    from knobregistry.registry import Verdict

    run = registry.profiles[name].verified
    if run is None or run.verdict is not Verdict.REPRODUCIBLE:
        return frozenset()
    return frozenset(run.combined_with)


def _polarity_unstated(where: ProfileWhere, candidate: Candidate) -> bool:
    """A registered disable knob whose entry does not say so: the registry alone, as
    `knobs export` reads it, takes it for an enable knob."""
    entry = where.registry.knobs.get(candidate.name)
    return entry is not None and entry.polarity is None and candidate.polarity is Polarity.DISABLE
