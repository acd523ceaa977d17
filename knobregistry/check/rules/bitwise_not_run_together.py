"""KNB112 BitwiseNotRunTogether: a bitwise profile that leaves on knobs triaged reproducible one
at a time, which no recorded run had on together (a warning).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import PROFILE, entry, example, profiles
from knobregistry.check.profile_where import ProfileWhere, left_on

if TYPE_CHECKING:
    from knobregistry.profiles import ResolvedProfile

_TOYS = (
    'import os\n\nA = os.environ.get("TOY_A", "1") != "0"\n'
    'B = os.environ.get("TOY_B", "1") != "0"\n'
)


_REPRODUCIBLE_TOYS = entry("TOY_A", "reproducible") + entry("TOY_B", "reproducible")


# KNB112's section of docs/profiles.md, below its heading (the site renders it there).
KNB112_SECTION = """\
Two knobs that are each reproducible alone can break reproducibility together:
two reductions that each keep a fixed order alone, and race when both are on. A
`bitwise` profile that leaves on two or more knobs triaged `reproducible` is then
assembled from single-knob verdicts, unless the registry records a run of the
profile as a whole:

- its own `verified` run, which `knobs triage --search fastest-bitwise --record`
  writes (the knobs it turned back on together, over the profile it started
  from); or
- any evidence record of a triage started from the profile (`profile:` names
  it): a triage records nothing unless its baseline, the profile itself, was
  reproducible.

A warning: it does not fail the check.

```
registry.yaml:26:3: KNB112 warning: profile 'bitwise' (kind bitwise) leaves on 4 knobs triaged reproducible one at a time (T_A, T_B, T_C, T_D), and no recorded run had them on together: knobs reproducible alone can break reproducibility together.
    run `knobs triage --profile bitwise --record -- COMMAND` (its baseline runs the profile as a whole), or `knobs triage --profile bitwise --search fastest-bitwise --record -- COMMAND`.
```

A knob that a bitwise profile's own `verified` run had on is held by that run
(KNB101 does not report it), whatever its single-knob triage says: the search
records `breaks-bitwise` on both knobs of a pair that breaks together, and keeps
one of them on in the profile it writes. A knob turned on by hand beyond the
verified run is held to its own triage again.
"""  # noqa: E501

KNB112 = Rule(
    code="KNB112",
    name="BitwiseNotRunTogether",
    title="A bitwise profile leaves on knobs judged reproducible one at a time, and no "
    "recorded run had it as a whole.",
    description=(
        "Two knobs that are each reproducible alone can break reproducibility together (two "
        "reductions that each keep a fixed order alone, and race when both are on). A "
        "profile of kind `bitwise` that leaves on two or more knobs triaged `reproducible` "
        "is assembled from single-knob verdicts unless the registry records a run of it as "
        "a whole: its own `verified` run (written by `knobs triage --search fastest-bitwise "
        "--record`), or an evidence record of a triage started from it (`profile:` names "
        "it; such a triage runs the profile itself as its baseline). A warning: it does "
        "not fail the check."
    ),
    example=(
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        '    select: [{default_on: true, triage_not: reproducible, set: "off"}]\n'
        "# TOY_A and TOY_B are triaged reproducible, each alone; no run had both on"
    ),
    examples=example(
        {**PROFILE, "pkg/toy.py": _TOYS},
        invalid={"registry.yaml": profiles(knobs=_REPRODUCIBLE_TOYS)},
        valid={"registry.yaml": profiles(knobs=_REPRODUCIBLE_TOYS, env='      TOY_B: "0"\n')},
    ),
    page="profiles.md",
    section=KNB112_SECTION,
    family=Family.PROFILES,
    help=(
        "Run `knobs triage --profile NAME --record -- COMMAND` (its baseline runs the profile "
        "as a whole), or `--search fastest-bitwise --record` to find and verify the fastest "
        "combination."
    ),
    severity=Severity.WARNING,
)


def not_run_together(where: ProfileWhere, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
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
    yield where.diagnostic(KNB112, ("profiles", name), message, fix, left_on[0])


def _reproducible_left_on(where: ProfileWhere, resolved: ResolvedProfile) -> list[str]:
    """The registered knobs, on by default and triaged reproducible, the profile leaves on."""
    from knobregistry.profiles import knob_candidates
    from knobregistry.registry import Triage

    return [
        c.name
        for c in knob_candidates(where.registry, None)
        if c.registered
        and c.default_on is True
        and c.triage is Triage.REPRODUCIBLE
        and left_on(where, resolved, c) is not None
    ]


def _run_as_a_whole(where: ProfileWhere, name: str, left_on: list[str]) -> bool:
    """Whether the registry records a reproducible run with every knob of ``left_on`` on:
    the profile's own `verified` run (its knobs, and what the profile it started from
    left on), or any record of a triage started from the profile (a triage records
    nothing unless its baseline, the profile itself, was reproducible)."""
    from knobregistry.profiles import resolve_profile
    from knobregistry.registry import Verdict

    registry = where.registry
    run = registry.profiles[name].verified
    if run is not None and run.verdict is Verdict.REPRODUCIBLE:
        covered = set(run.combined_with)
        base = run.profile
        if base is not None and base in registry.profiles and base != name:
            covered.update(_reproducible_left_on(where, resolve_profile(registry, base)))
        return set(left_on) <= covered
    return any(
        record.profile == name
        for knob in registry.knobs.values()
        if knob.evidence is not None
        for record in knob.evidence.records
    )
