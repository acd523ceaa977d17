"""KNB102 ProfileSetsUnknownVariable: a profile that sets a variable no scanned code reads and no
`external` entry declares.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from fnmatch import fnmatchcase

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import PROFILE, example, profiles
from knobregistry.check.profile_where import ProfileWhere

# KNB102's section of docs/profiles.md, below its heading (the site renders it there).
KNB102_SECTION = """\
A variable in a profile's `env` that no scanned code reads and no `external`
entry declares does nothing: usually a typo. (A registered knob that no code
reads is reported once, as KNB002. When paths on the command line narrow the
scan, KNB102 is not checked.)

```
registry.yaml:26:7: KNB102 error: profile 'custom' sets DEMO_ATTN_TRITN, which no scanned code reads and no `external` entry declares; setting it changes nothing.
    rename it to DEMO_ATTN_TRITON, or declare it under `external:` with the library that reads it (DEMO_ATTN_TRITN: {library: ..., description: ...}), or remove it from profiles.custom.env.
```
"""  # noqa: E501

KNB102 = Rule(
    code="KNB102",
    name="ProfileSetsUnknownVariable",
    title=(
        "A profile sets a variable that no scanned code reads and no `external` entry declares."
    ),
    description=(
        "A profile sets an environment variable that no code in the scan reads and no "
        "`external` entry declares: a typo, or a knob that was removed. Reported at the "
        "profile's value."
    ),
    example=(
        'profiles:\n  bitwise:\n    env:\n      PRIMUS_HC_TRITN: "0"    # a typo: no code reads it'
    ),
    examples=example(
        PROFILE,
        invalid={"registry.yaml": profiles(env='      PRIMUS_HC_TRITN: "0"\n')},
        valid={},
    ),
    page="profiles.md",
    section=KNB102_SECTION,
    family=Family.PROFILES,
    help=("Fix the name, or declare the variable under `external` with the library that reads it."),
)


def unknown_variables(where: ProfileWhere, profile: str) -> Iterator[Diagnostic]:
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
        yield where.diagnostic(KNB102, ("profiles", profile, "env", name), message, fix, name)
