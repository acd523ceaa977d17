"""KNB114 LauncherOverridesBitwise: a launcher write that sets a registered knob to the state (on
or off) opposite to the one a bitwise profile sets (a note; a computed value is never judged).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import PROFILE, entry, example, profiles
from knobregistry.check.profile_where import ProfileWhere, gate_sites, quote

if TYPE_CHECKING:
    from knobregistry.profiles import ResolvedProfile
    from scanner import Site

_FUSED = 'import os\n\nFUSED = os.environ.get("DEMO_FUSED", "1") != "0"\n'


# KNB114's section of docs/profiles.md, below its heading (the site renders it there).
KNB114_SECTION = """\
The scan links each knob to the launcher writes that set it (`set by` in `knobs
scan`, `set_by` in its JSON, a section of `knobs explain`): `export X=1`, `X=1
cmd`, `env X=1 cmd`, `docker run -e X=1`, `srun --export=X=1`, a hook's printed
`env.X=1`. When such a write gives a registered knob a value that every gate of
the code reads as on while a `bitwise` profile sets it off (or the other way
round), a run started through that launcher gets the launcher's value. A note:
whether the profile's runs go through that launcher is for a person to say.

A value the launcher computes when it runs (`$(nproc)`, `${BASE}/x`) is shown as
written and never judged: it is not known. A write under conditions the profile
sets all of is KNB106's; one under a test that names a variable the profile sets
(which the check cannot evaluate), and a value that some gate reads as on and
another as off, are not judged either.

```
registry.yaml:15:7: KNB114 note: profile 'bitwise' (kind bitwise) sets DEMO_FUSED to "0" (profiles.bitwise.env.DEMO_FUSED), which the code reads as off, but the launcher at launch/run.sh:2:8 sets it to "1" (export), which the code reads as on: a run started through it has DEMO_FUSED on.
    keep a value already set in the launcher (`DEMO_FUSED=${DEMO_FUSED:-1}`), or remove the write, or start the profile's runs another way.
```
"""  # noqa: E501

KNB114 = Rule(
    code="KNB114",
    name="LauncherOverridesBitwise",
    title="A launcher script sets a registered knob to a value that a bitwise profile contradicts.",
    description=(
        "A launcher write (`export X=1`, `X=1 cmd`, `env X=1`, `docker run -e X=1`, "
        "`srun --export=X=1`, a hook's printed `env.X=1`) sets a registered knob to a "
        "value that every gate of the code reads as on while a profile of kind `bitwise` "
        "sets it off (or the other way round). A run started through that launcher gets "
        "the launcher's value, not the profile's. A value the launcher computes when it "
        "runs (`$(nproc)`, `${BASE}/x`) is never judged: it is not known. A write under "
        "conditions the profile sets all of is KNB106's. A note: whether the profile's "
        "runs go through that launcher is for a person to say."
    ),
    example=(
        "export DEMO_FUSED=1            # launch/run.sh\n"
        "profiles:\n"
        "  bitwise:\n"
        "    kind: bitwise\n"
        '    env: {DEMO_FUSED: "0"}'
    ),
    examples=example(
        {
            **PROFILE,
            "registry.yaml": profiles(knobs=entry("DEMO_FUSED"), env='      DEMO_FUSED: "0"\n'),
            "pkg/fused.py": _FUSED,
        },
        invalid={"pkg/run.sh": "export DEMO_FUSED=1\n"},
        valid={"pkg/run.sh": "export DEMO_FUSED=${DEMO_FUSED:-1}\n"},
    ),
    page="profiles.md",
    section=KNB114_SECTION,
    family=Family.PROFILES,
    help=(
        "Make the launcher keep a value already set (`export X=${X:-1}`), or remove the "
        "write, or do not start the profile's runs through that launcher."
    ),
    severity=Severity.NOTE,
)


def launcher_overrides(where: ProfileWhere, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
    """KNB114: a launcher write puts a registered knob in the state opposite to the one the
    bitwise profile sets, at every gate of the code; a computed value is never judged."""
    from knobregistry.registry import ProfileKind

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
        gates = gate_sites(where, name)
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
                f"profile '{resolved.name}' (kind bitwise) sets {name} to {quote(value)} "
                f"({source}), which the code reads as {wanted}, but the launcher at "
                f"{where.site(write)} sets it to {quote(write.value)}{under} ({write.kind.value}), "
                f"which the code reads as {got}: a run started through it has {name} {got}."
            )
            fix = (
                f"keep a value already set in the launcher (`{name}=${{{name}:-{write.value}}}`),"
                " or remove the write, or start the profile's runs another way."
            )
            yield where.diagnostic(KNB114, source.key_path, message, fix, name)


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
