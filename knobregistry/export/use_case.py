"""`knobs export` as a use case: a profile of the registry resolved into what to export,
or held against an environment.

`export_profile` returns the `Export` the command renders (in a format of
`export.formats`, or as a review); `check_environment` returns the differences of an
environment from the profile. Neither prints nor exits: a `ProfileError` (or a
`RegistryError`, from the project's pyproject.toml with ``scan``) says what stopped them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from knobregistry._text.plural import counted
from knobregistry.export.common import Export
from knobregistry.profiles import (
    Difference,
    ProfileError,
    ResolvedProfile,
    differences,
    resolve_profile,
    unset_names,
)
from knobregistry.registry import Registry
from knobregistry.registry.feature import is_required
from scanner import ScanResult


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportRequest:
    """What `knobs export` was asked for."""

    profile: str
    registry_shown: str  # the registry file as the output names it
    unset_others: bool = False  # also unset what the profile does not set
    scan: bool = False  # scan the registry's scope first, for knobs not yet registered
    strict: bool = False  # refuse a recipe a rule would make with an undecided knob
    review: bool = False  # for a review (--explain), which --strict never stops


def export_profile(registry: Registry, request: ExportRequest) -> Export:
    """The profile ``request`` names, resolved with what it unsets; raises ProfileError (with
    ``strict``, also where a rule would set a knob nobody has decided)."""
    resolved, unset = _resolved(registry, request)
    if request.strict and not request.review and (resolved.undecided or resolved.unknown_roles):
        raise ProfileError(undecided_message(resolved))
    return Export(
        profile=resolved,
        registry=request.registry_shown,
        unset=unset,
        unset_others=request.unset_others,
        config_keys=registry.config,
    )


def check_environment(
    registry: Registry, request: ExportRequest, environ: Mapping[str, str]
) -> tuple[Difference, ...]:
    """Every variable of ``environ`` that does not match the profile (none: it matches)."""
    resolved, unset = _resolved(registry, request)
    return differences(resolved, environ, unset)


def _resolved(
    registry: Registry, request: ExportRequest
) -> tuple[ResolvedProfile, tuple[str, ...]]:
    result = _scan(registry) if request.scan else None
    resolved = resolve_profile(registry, request.profile, result)
    required = [k.name for k in result.knobs if is_required(k)] if result else []
    unset = unset_names(registry, resolved, unset_others=request.unset_others, required=required)
    return resolved, unset


def _scan(registry: Registry) -> ScanResult:
    missing = [p for p in registry.scan_paths() if not p.exists()]
    if missing:
        shown = ", ".join(p.as_posix() for p in missing)
        raise ProfileError(f"--scan: the registry's scan paths do not exist: {shown}.")
    from knobregistry.project.scan_for import scan_for  # the whole scanner: only for --scan

    return scan_for(registry)


def undecided_message(resolved: ResolvedProfile) -> str:
    """Why a --strict export stops: the knobs a rule would set whose gate or role nobody
    has decided."""
    held = (*resolved.undecided, *resolved.unknown_roles)
    lines = [
        f"--strict: profile '{resolved.name}' would set {counted(len(held), 'knob')} whose "
        "gate or role nobody has decided; nothing is written:",
        *(f"  {item.name} ({item.why.value}): {item.reason}" for item in held),
        "Read the code around each (`knobs explain NAME`) and write what it does in the "
        "registry: `default_on` for an undecided gate (then remove `undecided`), `role` for "
        "an unknown role. Without --strict, the export leaves them as the code has them.",
    ]
    return "\n".join(lines)
