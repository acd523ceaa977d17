"""The profile checks of `knobs check` (KNB1xx): does each profile do what it promises?

Each profile is resolved from the registry alone, as `knobs export` writes it, and held
against the scan by the checks of the rules of family PROFILES, one module each in
knobregistry.check.rules (`knobs rule` lists them). A knob a bitwise profile's own
`verified` run had on (`knobs triage --search fastest-bitwise --record`) is held by that
run, whatever its single-knob triage says.
"""

from __future__ import annotations

from pathlib import Path

from knobregistry.check.codes import check_of
from knobregistry.check.diagnostics import Diagnostic, Family
from knobregistry.check.family_check import Context
from knobregistry.check.profile_where import ProfileWhere
from knobregistry.check.rules.bitwise_leaves_knob_on import bitwise_holes
from knobregistry.check.rules.bitwise_not_run_together import not_run_together
from knobregistry.check.rules.bitwise_requirements import missed_requirements
from knobregistry.check.rules.implication_gone import gone_implications
from knobregistry.check.rules.launcher_overrides_bitwise import launcher_overrides
from knobregistry.check.rules.megatron_keys import FieldsLookup, megatron_key_diagnostics
from knobregistry.check.rules.profile_contradicts_launcher import launcher_contradictions
from knobregistry.check.rules.profile_sets_unknown_variable import unknown_variables
from knobregistry.check.rules.profile_value_misses_gate import gate_mismatches
from knobregistry.check.rules.stack_settings import lacking, launcher_sets_unset, project_stack
from knobregistry.check.rules.torchtitan_keys import TitanLookup, torchtitan_key_diagnostics
from knobregistry.profiles import resolve_profile
from knobregistry.profiles.megatron import megatron_fields
from knobregistry.profiles.torchtitan import torchtitan_fields
from knobregistry.registry import ProfileKind, Registry
from scanner import ScanResult


def check_profiles(
    registry: Registry,
    scan: ScanResult,
    *,
    cwd: Path | None = None,
    full_scope: bool = True,
    megatron: FieldsLookup = megatron_fields,
    torchtitan: TitanLookup = torchtitan_fields,
) -> list[Diagnostic]:
    """Every KNB1xx finding for ``registry``'s profiles, sorted; paths relative to ``cwd``.

    ``scan`` is the scan of the registry's scope (site paths relative to its folder).
    ``full_scope=False`` (paths on the command line narrowed the scan) skips KNB102,
    since a variable read outside the narrowed paths would look unread.
    """
    where = ProfileWhere(registry, cwd if cwd is not None else Path.cwd(), scan)
    found: list[Diagnostic] = []
    bitwise = any(p.kind is ProfileKind.BITWISE for p in registry.profiles.values())
    stack = project_stack(registry, scan) if bitwise and full_scope else None
    for name, profile in registry.profiles.items():
        resolved = resolve_profile(registry, name)
        if profile.kind is ProfileKind.BITWISE:
            found.extend(bitwise_holes(where, resolved, resolve_profile(registry, name, scan)))
            found.extend(missed_requirements(where, resolved))
            found.extend(not_run_together(where, resolved))
            if stack is not None:
                found.extend(lacking(where, resolved, stack))
            found.extend(launcher_overrides(where, resolved))
            found.extend(launcher_sets_unset(where, resolved, scan))
        if full_scope:
            found.extend(unknown_variables(where, name))
        found.extend(gate_mismatches(where, resolved))
        found.extend(launcher_contradictions(where, resolved))
    if full_scope:
        found.extend(gone_implications(where))
    found.extend(megatron_key_diagnostics(registry, where.registry_file, megatron))
    found.extend(torchtitan_key_diagnostics(registry, where.registry_file, torchtitan))
    return sorted(found, key=lambda d: d.sort_key)


def _run(context: Context) -> list[Diagnostic]:
    return check_profiles(
        context.registry, context.scan, cwd=context.cwd, full_scope=context.full_scope
    )


PROFILES = check_of(Family.PROFILES, _run)
