"""Compare a process environment with a resolved profile (`knobs export --check-env`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from knobregistry.profiles.model import ResolvedProfile
from knobregistry.registry import Registry


@dataclass(frozen=True, slots=True)
class Difference:
    """One variable whose value in the environment is not the profile's."""

    name: str
    expected: str | None  # None: the profile wants it unset
    found: str | None  # None: it is unset

    def render(self) -> str:
        """`NAME: expected '0', found '1'` (or `found unset` / `expected unset`)."""
        return f"{self.name}: expected {_show(self.expected)}, found {_show(self.found)}"


def _show(value: str | None) -> str:
    """A value as Python writes it (control characters escaped), or `unset`."""
    return "unset" if value is None else repr(value)


def others(
    registry: Registry, resolved: ResolvedProfile, required: Collection[str] = ()
) -> tuple[str, ...]:
    """Registered knobs and external variables the profile neither sets nor unsets, sorted;
    never a knob the code needs set (`required: true`, or named in ``required``)."""
    named = set(resolved.env) | set(resolved.unset) | set(required)
    needed = {n for n, entry in registry.knobs.items() if entry.required}
    candidates = (*registry.knobs, *registry.external)
    return tuple(sorted(n for n in candidates if n not in named and n not in needed))


def unset_names(
    registry: Registry,
    resolved: ResolvedProfile,
    *,
    unset_others: bool,
    required: Collection[str] = (),
) -> tuple[str, ...]:
    """What an export unsets: the profile's own `set: default` names, and the others if asked
    (``required``: variables a scan found the code needs, kept like `required: true` ones)."""
    extra = others(registry, resolved, required) if unset_others else ()
    return tuple(sorted({*resolved.unset, *extra}))


def differences(
    resolved: ResolvedProfile, environ: Mapping[str, str], unset: tuple[str, ...] = ()
) -> tuple[Difference, ...]:
    """Every variable of ``environ`` that does not match the profile, sorted by name.

    ``unset`` names variables that must not be set at all (see `unset_names`).
    """
    found: list[Difference] = []
    for name, value in resolved.env.items():
        actual = environ.get(name)
        if actual != value:
            found.append(Difference(name, value, actual))
    for name in unset:
        if name in environ and name not in resolved.env:
            found.append(Difference(name, None, environ[name]))
    return tuple(sorted(found, key=lambda d: d.name))
