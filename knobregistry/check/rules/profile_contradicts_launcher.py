"""KNB106 ProfileContradictsLauncher: a profile that sets a switch which makes a launcher script
set another variable, and gives that variable a different value.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule
from knobregistry.check.examples import NCCL_ALGO, PROFILE, example, profiles
from knobregistry.check.profile_where import ProfileWhere, quote

if TYPE_CHECKING:
    from knobregistry.profiles import ResolvedProfile

_LAUNCHER = '[ "$PRIMUS_DETERMINISTIC" = 1 ] && export NCCL_ALGO=Ring\n'


def _deterministic(algo: str) -> str:
    """A profile that sets the launcher's switch, and NCCL_ALGO to ``algo``."""
    switch = "  PRIMUS_DETERMINISTIC:\n    default_on: false\n    triage: untriaged\n"
    env = f'      PRIMUS_DETERMINISTIC: "1"\n      NCCL_ALGO: {algo}\n'
    return profiles(knobs=switch, external=NCCL_ALGO, env=env)


# KNB106's section of docs/profiles.md, below its heading (the site renders it there).
KNB106_SECTION = """\
The scan reads launcher scripts too, and records a write made under a condition
on another variable as an implication: Primus's hook `05_deterministic.sh` prints
`env.NCCL_ALGO=Ring` only when `PRIMUS_DETERMINISTIC=1`. A profile that sets the
switch and gives the implied variable another value contradicts the launcher;
the run gets whichever value is applied last. Restating the launcher's value is
fine.

```
registry.yaml:25:7: KNB106 error: profile 'bitwise' sets NCCL_ALGO to "Tree" (profiles.bitwise.env.NCCL_ALGO), but with DEMO_DETERMINISTIC="1", which it also sets, the launcher sets NCCL_ALGO to "Ring" at launcher/hooks/05_deterministic.sh:9:1: the run gets whichever is applied last.
    write `NCCL_ALGO: "Ring"` under profiles.bitwise.env (or remove it and leave it to the launcher), or stop setting DEMO_DETERMINISTIC.
```
"""  # noqa: E501

KNB106 = Rule(
    code="KNB106",
    name="ProfileContradictsLauncher",
    title="A profile sets a variable to one value while the switch it also sets makes the "
    "launcher set it to another.",
    description=(
        "A launcher script (a shell script or a hook that prints `env.NAME=VALUE`) writes a "
        "variable under a condition on another one: `PRIMUS_DETERMINISTIC=1` implies "
        "`NCCL_ALGO=Ring`. A profile that sets the switch and gives the implied variable a "
        "different value contradicts the launcher: which value the run gets depends on which "
        "is applied last. Reported at the profile's value, naming the launcher's line."
    ),
    example=(
        '# launcher: [ "$PRIMUS_DETERMINISTIC" = 1 ] && export NCCL_ALGO=Ring\n'
        "profiles:\n"
        "  bitwise:\n"
        "    env:\n"
        '      PRIMUS_DETERMINISTIC: "1"\n'
        "      NCCL_ALGO: Tree"
    ),
    examples=example(
        {**PROFILE, "pkg/launch.sh": _LAUNCHER},
        invalid={"registry.yaml": _deterministic("Tree")},
        valid={"registry.yaml": _deterministic("Ring")},
    ),
    page="profiles.md",
    section=KNB106_SECTION,
    family=Family.PROFILES,
    help=(
        "Give the variable the launcher's value in the profile (or leave it to the launcher), "
        "or stop setting the switch that implies it."
    ),
)


def launcher_contradictions(where: ProfileWhere, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
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
        condition = " and ".join(f"{n}={quote(v)}" for n, v in write.when)
        message = (
            f"profile '{resolved.name}' sets {name} to {quote(env[name] or '')} ({source}), but "
            f"with {condition}, which it also sets, the launcher sets {name} to {quote(implied)} "
            f"at {where.site(write)}: the run gets whichever is applied last."
        )
        fix = (
            f"write `{name}: {quote(implied)}` under profiles.{resolved.name}.env (or remove it "
            f"and leave it to the launcher), or stop setting {', '.join(n for n, _ in write.when)}."
        )
        yield where.diagnostic(KNB106, source.key_path, message, fix, name)
