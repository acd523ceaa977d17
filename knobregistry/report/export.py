"""What `knobs export` says to a person: the summary on standard error, and the review
that `--explain` prints (every line with its role and the evidence, then what was left as
the code has it)."""

from __future__ import annotations

from collections import Counter

from knobregistry._text.plural import counted
from knobregistry.export.common import Export
from knobregistry.export.shell import sh_lines
from knobregistry.profiles import LeftAlone, ResolvedProfile, Why
from knobregistry.profiles.candidates import deterministic_value
from scanner import Role

# The order roles are counted in: what a bitwise recipe sets first.
_ORDER = (Role.KERNEL, Role.DETERMINISM, Role.STACK)
# A value the profile names under `env` for a variable no scanned or registered knob
# reads (an `external` one), that the catalogue does not know either.
_EXPLICIT = "explicit"


def _role_of(resolved: ResolvedProfile, name: str) -> str:
    role = resolved.roles.get(name)
    if role is not None:
        return role.value
    return Role.STACK.value if deterministic_value(name) is not None else _EXPLICIT


def _by_role(resolved: ResolvedProfile, names: list[str]) -> str:
    counts = Counter(_role_of(resolved, n) for n in names)
    order = [r.value for r in _ORDER] + sorted(
        k for k in counts if k not in {r.value for r in _ORDER}
    )
    return ", ".join(f"{counts[key]} {key}" for key in order if counts[key])


def explain_command(export: Export) -> str:
    """The command that lists what the export left alone."""
    return f"knobs export --profile {export.profile.name} --registry {export.registry} --explain"


def summary(export: Export) -> list[str]:
    """The lines `knobs export` writes to standard error: what it set, by role, and what
    it left as the code has it, with the command that lists them (none when it did
    neither)."""
    resolved = export.profile
    names = list(resolved.env)
    lines = []
    if names:
        lines.append(f"Set {counted(len(names), 'variable')}: {_by_role(resolved, names)}.")
    if export.unset:
        lines.append(f"Unset {counted(len(export.unset), 'variable')}.")
    if resolved.left:
        counts = Counter(item.why for item in resolved.left)
        parts = ", ".join(f"{counts[why]} {why.value}" for why in Why if counts[why])
        lines.append(
            f"Left as the code has them: {counted(len(resolved.left), 'knob')} ({parts}); "
            f"`{explain_command(export)}` lists them."
        )
    if resolved.computed:
        held = ", ".join(resolved.computed)
        lines.append(f"Set off whatever the code computes for them unset: {held}.")
    if resolved.undecided:
        held = ", ".join(item.name for item in resolved.undecided)
        lines.append(f"Undecided, so not set: {held}.")
    return lines


def render_review(export: Export) -> str:
    """Every variable the export sets or unsets, with its role and the evidence, then every
    knob a rule left as the code has it, and why."""
    resolved = export.profile
    out = [
        f"Profile {resolved.name} ({export.registry}): "
        f"{counted(len(resolved.env), 'variable')} set, "
        f"{counted(len(export.unset), 'variable')} unset, "
        f"{counted(len(resolved.left), 'knob')} left as the code has them.",
    ]
    for name, value in resolved.env.items():
        out.append("")
        out.extend(sh_lines({name: value}, ()))
        out.extend(_evidence(resolved, name))
    for name in export.unset:
        out.append("")
        out.append(f"unset {name}")
        out.extend(_evidence(resolved, name))
    if resolved.left:
        out.append("")
        out.append("Left as the code has them:")
        out.extend(_left(item) for item in resolved.left)
    return "\n".join(out) + "\n"


def _evidence(resolved: ResolvedProfile, name: str) -> list[str]:
    source = resolved.sources.get(name)
    role = _role_of(resolved, name)
    reason = resolved.role_reasons.get(name)
    lines = [f"  role: {role}" + (f" ({reason})" if reason else "")]
    if source is not None:
        lines.append(f"  set by: {source}")
    return lines


def _left(item: LeftAlone) -> str:
    registered = "" if item.registered else ", not registered"
    return f"  {item.name} ({item.why.value}{registered}): {item.reason}"
