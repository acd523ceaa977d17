"""Hold a trace against the static scan of the registry's scope, the registry and a profile.

Python sites are matched to the scan by file and line, with symlinks resolved;
a read counts as inside the scope when its file is one of the scope's paths or
under one of its folders.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry.profiles import ResolvedProfile
from knobregistry.registry import Registry
from knobregistry.trace.model import (
    Level,
    Missing,
    MissKind,
    NotRead,
    ProfileDifference,
    Read,
    Reconciled,
    ResolvedDynamic,
    Seen,
    Trace,
    TraceSite,
)
from knobregistry.trace.python_hook import MAX_VALUE
from knobregistry.trace.view import project_prefixes
from scanner import ScanResult


@cache
def _real(path: str) -> str:
    return os.path.realpath(path)


def reconcile(
    trace: Trace,
    registry: Registry,
    scan: ScanResult,
    *,
    cwd: Path,
    profile: ResolvedProfile | None = None,
) -> Reconciled:
    """Every section of the reconcile; ``profile`` adds its differences."""
    root = registry.root.absolute()
    scope = tuple(_real(str(p.absolute())) for p in registry.scan_paths())
    dynamic = {(_real(str(root / d.path)), d.line): d for d in scan.dynamic}
    inventory = {knob.name for knob in scan.knobs}
    by_name: dict[str, list[Read]] = {}
    for read in trace.reads:
        by_name.setdefault(read.name, []).append(read)
    missing = tuple(
        _missing(name, reads, registry, scope, dynamic.keys())
        for name, reads in sorted(by_name.items())
        if name not in inventory
    )
    resolved = []
    for (real, line), place in sorted(dynamic.items(), key=lambda item: item[1].sort_key):
        names = sorted(
            {r.name for r in trace.reads if r.level is Level.PYTHON and _at(r, real, line)}
        )
        if names:
            resolved.append(
                ResolvedDynamic(
                    path=place.path,
                    line=place.line,
                    expression=place.expression,
                    names=tuple(names),
                )
            )
    seen = trace.names()
    not_read = tuple(
        sorted(
            [NotRead(n, "knob") for n in registry.knobs if n not in seen]
            + [NotRead(n, "external") for n in registry.external if n not in seen],
            key=lambda entry: entry.name,
        )
    )
    differences, unverified = _profile(trace.reads, profile) if profile else ((), ())
    return Reconciled(
        registry=shown(registry.path, cwd),
        inventory=len(scan.knobs),
        missing=missing,
        resolved_dynamic=tuple(resolved),
        not_read=not_read,
        profile=profile.name if profile else None,
        differences=differences,
        unverified=unverified,
        known=tuple(sorted({*registry.knobs, *registry.external, *inventory})),
        prefixes=project_prefixes({*registry.knobs, *inventory}),
    )


def _at(read: Read, real: str, line: int) -> bool:
    return any(f.line == line and _real(f.path) == real for f in read.frames)


def _inside(path: str, scope: tuple[str, ...]) -> bool:
    real = _real(path)
    return any(real == top or real.startswith(top.rstrip(os.sep) + os.sep) for top in scope)


def _missing(
    name: str,
    reads: list[Read],
    registry: Registry,
    scope: tuple[str, ...],
    dynamic: Iterable[tuple[str, int]],
) -> Missing:
    python = [r for r in reads if r.level is Level.PYTHON]
    places = set(dynamic)
    if any((_real(f.path), f.line) in places for r in python for f in r.frames):
        kind = MissKind.DYNAMIC
    elif any(_inside(s.path, scope) for r in python for s in r.sites if s.line is not None):
        kind = MissKind.SCANNER_MISS
    elif python:
        kind = MissKind.OUTSIDE_SCOPE
    else:
        kind = MissKind.C_LEVEL
    registered = (
        "external" if name in registry.external else "knob" if name in registry.knobs else None
    )
    return Missing(
        name=name,
        kind=kind,
        levels=tuple(level for level in Level if any(r.level is level for r in reads)),
        sites=_sites(reads),
        registered=registered,
    )


def _sites(reads: Iterable[Read]) -> tuple[TraceSite, ...]:
    return tuple(sorted({s for r in reads for s in r.sites}, key=lambda s: (s.path, s.line or 0)))


def _profile(
    reads: tuple[Read, ...], profile: ResolvedProfile
) -> tuple[tuple[ProfileDifference, ...], tuple[str, ...]]:
    """Reads whose value is not the profile's; names whose withheld value cannot be checked.

    Reads of values past those kept at a site (OTHERS) are left out: that site kept
    python_hook.VALUES different values, so at least one of them is not the profile's.
    """
    found: list[ProfileDifference] = []
    unverified: set[str] = set()
    for read in reads:
        if read.name not in profile.env and read.name not in profile.unset:
            continue
        expected = profile.env.get(read.name)
        if read.seen is Seen.OTHERS:
            continue
        if read.seen is Seen.WITHHELD:
            if expected is None:
                found.append(_difference(read, None, withheld=True))
            else:
                unverified.add(read.name)
        elif read.seen is Seen.LONG:
            if expected is None or len(expected.encode("utf-8", "surrogatepass")) <= MAX_VALUE:
                found.append(_difference(read, expected, long=True))
            else:
                unverified.add(read.name)
        elif read.value != expected:
            found.append(_difference(read, expected))
    found.sort(key=lambda d: (d.name, d.level.value, d.found or "", d.withheld, d.long))
    return tuple(found), tuple(sorted(unverified))


def _difference(
    read: Read, expected: str | None, *, withheld: bool = False, long: bool = False
) -> ProfileDifference:
    return ProfileDifference(
        name=read.name,
        expected=expected,
        found=read.value,
        level=read.level,
        sites=read.sites,
        withheld=withheld,
        long=long,
    )
