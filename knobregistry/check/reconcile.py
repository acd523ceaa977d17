"""The inventory's check: scan x registry -> the findings of KNB001-KNB008 (each made by its
rule's module). Pure: no files read, nothing printed, no exit codes."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

from knobregistry.check.diagnostics import Diagnostic
from knobregistry.check.rules.conflicting_sites import conflicting
from knobregistry.check.rules.default_drift import (
    default_drift,
    recorded_sites_drift,
    states_default_on,
)
from knobregistry.check.rules.dynamic_read import dynamic
from knobregistry.check.rules.stale_knob import stale
from knobregistry.check.rules.undecided_gate import still_undecided, undecided
from knobregistry.check.rules.unregistered_knob import unregistered
from knobregistry.check.rules.unscannable_file import unscannable
from knobregistry.check.where import Where
from knobregistry.registry import KnobEntry, Policy, Registry, holds_name
from knobregistry.registry.feature import is_launch_fact, is_undecided, knob_feature_on
from scanner import Knob, ScanResult, Site


def reconcile(
    scan: ScanResult, registry: Registry, *, cwd: Path, check_stale: bool = True
) -> tuple[Diagnostic, ...]:
    """Every difference between ``scan`` and ``registry``, sorted (path, line, column, code).

    ``scan`` paths are relative to the registry's folder; diagnostics show them
    relative to ``cwd``. ``check_stale`` is False when only part of the scope was
    scanned, so that entries read elsewhere are not called stale.
    """
    where = Where(registry, cwd)
    found: list[Diagnostic] = []
    for knob in scan.knobs:
        # A name no registry can hold (`ProgramFiles(x86)`): `knobs init` left it out too.
        if holds_name(knob.name):
            found.extend(_knob(where, knob))
    if check_stale:
        read = {knob.name for knob in scan.knobs}
        for name in registry.knobs:
            if name not in read:
                found.append(stale(where, name, not _selected(registry, name)))
    if registry.scan.policy is Policy.ALL:
        found.extend(dynamic(where, d) for d in scan.dynamic)
    found.extend(unscannable(where, error) for error in scan.errors)
    return tuple(sorted(found, key=lambda d: d.sort_key))


def required(registry: Registry, knob: Knob) -> bool:
    """Whether the registry's policy requires ``knob`` to be registered.

    Policy `all`: every knob. Policy `default-on`: a knob whose feature is on by
    default (on by default, or a `disable` knob off by default), and a knob whose
    gate the scanner could not decide (a person must); never a launch fact.
    """
    if registry.scan.policy is Policy.ALL:
        return True
    if is_launch_fact(knob):
        return False
    return is_undecided(knob) or knob_feature_on(knob) is True


def _knob(where: Where, knob: Knob) -> list[Diagnostic]:
    registry = where.registry
    entry = registry.knobs.get(knob.name)
    needed = required(registry, knob)
    out = []
    if entry is None and needed and knob.name not in registry.external:
        if is_undecided(knob):
            out.append(undecided(where, knob))
        else:
            out.append(unregistered(where, knob))
    if entry is not None and entry.undecided is not None:
        out.append(still_undecided(where, knob, entry.undecided))
    if entry is not None and entry.sites is not None:
        # The entry records how each site reads it: the code must read it so, conflict or not.
        out.extend(recorded_sites_drift(where, knob, entry, entry.sites))
    # A launch fact is a fact of the run, never a conflict.
    elif knob.conflict and not is_launch_fact(knob) and (entry is not None or needed):
        out.append(conflicting(where, knob, _conflict_site(registry, knob, entry)))
    elif entry is not None:
        out.extend(
            default_drift(where, knob, entry, site)
            for site in knob.sites
            if _drifts(registry, knob, entry, site)
        )
        if not out and _knob_state_drifts(registry, knob, entry):
            out.append(default_drift(where, knob, entry, knob.sites[0]))
    return out


def _selected(registry: Registry, name: str) -> bool:
    patterns = registry.scan.match
    return not patterns or any(fnmatchcase(name, p) for p in patterns)


def _drifts(registry: Registry, knob: Knob, entry: KnobEntry, site: Site) -> bool:
    """Whether this site's default or on/off state differs from what the entry registers."""
    # A default computed when the script runs is not known: it never drifts.
    known = site.default_computed is None
    if entry.default is not None and site.default != entry.default and known:
        return True
    # A launch fact is no switch, whatever one of its sites tests: only its default counts.
    # A variable that chooses with others (`together`) is on or off by default as their
    # setting is, not as its own test reads it: the knob's state is compared instead.
    return (
        not is_launch_fact(knob)
        and not entry.together
        and states_default_on(registry, knob.name)
        and site.default_on is not None
        and site.default_on != entry.default_on
    )


def _knob_state_drifts(registry: Registry, knob: Knob, entry: KnobEntry) -> bool:
    """A knob-level difference no single site shows (every site a value, entry says on).

    An undecided knob has none: what its entry says is the decision of a person.
    """
    if is_undecided(knob) or entry.together:
        return False  # a variable of a setting: on by default as the setting is
    return states_default_on(registry, knob.name) and knob.default_on != entry.default_on


def _conflict_site(registry: Registry, knob: Knob, entry: KnobEntry | None) -> Site:
    """The first site that disagrees with the registry, else the first site."""
    if entry is not None:
        for site in knob.sites:
            if _drifts(registry, knob, entry, site):
                return site
    return knob.sites[0]
