"""KNB109 BitwiseMissesRequirement, KNB110 RequirementConditionUndecided: a bitwise profile that
leaves a variable without the value code requires (in deterministic mode, say), or sets one
the code refuses; KNB110 when the condition is one the profile's config does not decide.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import PROFILE, example, profiles
from knobregistry.check.profile_where import ProfileWhere, quote
from scanner import GateKind

if TYPE_CHECKING:
    from knobregistry.profiles import ResolvedProfile
    from knobregistry.registry import KeyPath
    from knobregistry.registry.model import JsonValue

_REQUIRES = (
    "import os\n\n\ndef validate(args):\n    if {}:\n"
    '        assert os.environ.get("TORCH_COMPILE_DISABLE") == "1"\n'
)


def _required(env: str) -> str:
    """A profile in deterministic mode (a Primus key), with ``env`` added."""
    external = "  TORCH_COMPILE_DISABLE:\n    description: Turns torch.compile off.\n"
    config = "  deterministic_mode:\n    backend: primus\n    description: Deterministic mode.\n"
    profile = profiles(external=external, config=config, env=env)
    return profile + "    config:\n      deterministic_mode: true\n"


# KNB109's section of docs/profiles.md, below its heading (the site renders it there).
KNB109_SECTION = """\
The scan reports a read whose first test guards a raise, and that lets the code
go on only for given values, as a *requirement* (`required` in the scan table),
with the tests around it that it holds under: `assert os.environ.get(env) ==
value`, `if os.getenv("X") != "1": raise ...`. Primus's `validate_args_on_rocm`
requires four variables when `args.deterministic_mode` is set. A `bitwise`
profile must give each required variable one of its accepted values when its
config meets the condition (`deterministic_mode: true`), or the run it
describes stops at start-up; and it must not set a required variable to a value
the code refuses. A requirement with no condition is the run's own set-up (a
path, a value the launcher gives), left to its environment: the recipe does not
guess it.

```
registry.yaml:11:3: KNB109 error: profile 'bitwise' (kind bitwise) leaves it unset, but the code at src/validate.py:9:20 raises unless DEMO_COMPILE_DISABLE is "1" when args.deterministic_mode.
    set `DEMO_COMPILE_DISABLE: "1"` under profiles.bitwise.env.
```
"""  # noqa: E501

KNB109 = Rule(
    code="KNB109",
    name="BitwiseMissesRequirement",
    title="A bitwise profile does not give a variable the value that code requires.",
    description=(
        "Code of the scan refuses to run unless a variable holds given values (`assert "
        "os.environ.get(env) == value`, as Primus's `validate_args_on_rocm` does for "
        "TORCH_COMPILE_DISABLE and three more in deterministic mode). A profile of kind "
        "`bitwise` that leaves the variable unset while its config turns that condition "
        "on, or sets a value the code refuses, starts a run that stops there. A "
        "requirement with no condition is the run's own set-up, left to its environment. "
        "Reported at the profile."
    ),
    example=(
        "if args.deterministic_mode:    # code of the scan\n"
        '    assert os.environ.get("TORCH_COMPILE_DISABLE") == "1"\n'
        "# a bitwise profile sets deterministic_mode: true, leaves TORCH_COMPILE_DISABLE unset"
    ),
    examples=example(
        {**PROFILE, "pkg/validate.py": _REQUIRES.format("args.deterministic_mode")},
        invalid={"registry.yaml": _required("")},
        valid={"registry.yaml": _required('      TORCH_COMPILE_DISABLE: "1"\n')},
    ),
    page="profiles.md",
    section=KNB109_SECTION,
    family=Family.PROFILES,
    help="Set the variable to the required value under the profile's `env`.",
)

# KNB110's section of docs/profiles.md, below its heading (the site renders it there).
KNB110_SECTION = """\
A requirement under a condition the profile's config does not decide
(`args.fp8_recipe == "mxfp8"` with no `fp8_recipe` in the profile) is a note: a
person must say whether the profile's runs meet it.

```
registry.yaml:11:3: KNB110 note: profile 'bitwise' (kind bitwise) leaves it unset, but the code at src/validate.py:11:16 raises unless DEMO_MXFP8 is "1" when args.fp8_recipe == "mxfp8", which the profile's config does not decide.
    set `DEMO_MXFP8: "1"` under profiles.bitwise.env.
```
"""  # noqa: E501

KNB110 = Rule(
    code="KNB110",
    name="RequirementConditionUndecided",
    title="Code requires a value only under a condition the check cannot evaluate for a "
    "bitwise profile.",
    description=(
        "A requirement holds only under a test of the trainer's arguments "
        '(`if args.fp8_recipe == "mxfp8":`) that the profile\'s config does not decide. '
        "A note for a person: if the profile's runs meet the condition, they stop there "
        "unless the variable holds the required value."
    ),
    example=(
        'if args.fp8_recipe == "mxfp8":\n'
        '    assert os.environ.get("NVTE_FP8_BLOCK") == "1"\n'
        "# the bitwise profile does not set fp8_recipe"
    ),
    examples=example(
        {**PROFILE, "pkg/validate.py": _REQUIRES.format('args.fp8_recipe == "mxfp8"')},
        invalid={"registry.yaml": _required("")},
        valid={"registry.yaml": _required('      TORCH_COMPILE_DISABLE: "1"\n')},
    ),
    page="profiles.md",
    section=KNB110_SECTION,
    family=Family.PROFILES,
    help="Set the variable as required, or set the config key that decides the condition.",
    severity=Severity.NOTE,
)


def missed_requirements(where: ProfileWhere, resolved: ResolvedProfile) -> Iterator[Diagnostic]:
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
        accepted = " or ".join(quote(v) for v in first.gate.on_values[:3])
        source = resolved.sources.get(knob.name)
        state = "leaves it unset" if value is None else f"sets it to {quote(value)} ({source})"
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
        wanted = quote(first.gate.on_values[0])
        fix = f"set `{knob.name}: {wanted}` under profiles.{resolved.name}.env."
        rule = KNB109 if holds else KNB110
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
