"""`knobs explain`: everything known about one knob, from the registry and from the code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from knobregistry._text.paths import shown
from knobregistry._text.suggest import closest
from knobregistry.check.reconcile import required
from knobregistry.profiles import ProfileError, resolve_profile
from knobregistry.project.scan_for import scan_for
from knobregistry.registry import ExternalKnob, KnobEntry, Registry
from knobregistry.registry.yaml_format import quoted
from scanner import Knob, ScanResult, Site, Write

CONTEXT_LINES = 2


@dataclass(frozen=True, slots=True)
class SiteContext:
    """A site, its path as the user sees it, and the numbered lines around it."""

    site: Site
    path: str
    lines: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class Setter:
    """A launcher write that sets the knob, and its path as the user sees it."""

    write: Write
    path: str


@dataclass(frozen=True, slots=True)
class ProfileSetting:
    """What one profile does with the knob: `"0" (env)`, `off, "0" (select rule 1)`."""

    profile: str
    setting: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Explanation:
    """One knob: its registry entry (or external entry), its scan verdict and its sites."""

    name: str
    registry: str
    entry: KnobEntry | None
    position: tuple[int, int] | None  # of the entry in the registry
    external: ExternalKnob | None
    knob: Knob | None
    required: bool  # whether the policy requires it to be registered
    sites: tuple[SiteContext, ...]
    profiles: tuple[ProfileSetting, ...]
    set_by: tuple[Setter, ...] = ()


def explain(registry: Registry, name: str, *, cwd: Path | None = None) -> Explanation | None:
    """The explanation of ``name``, or None when neither registry nor code knows it."""
    here = cwd if cwd is not None else Path.cwd()
    result = scan_for(registry)
    knob = result.knob(name)
    entry = registry.knobs.get(name)
    external = registry.external.get(name)
    if knob is None and entry is None and external is None:
        return None
    section = "knobs" if entry is not None else "external"
    position = registry.position(section, name) if entry or external else None
    sites = tuple(_context(registry, s, here) for s in knob.sites) if knob else ()
    return Explanation(
        name=name,
        registry=shown(registry.path, here),
        entry=entry,
        position=position,
        external=external,
        knob=knob,
        required=knob is not None and required(registry, knob),
        sites=sites,
        profiles=_profiles(registry, name, result),
        set_by=tuple(
            Setter(w, shown(registry.root / w.path, here)) for w in (knob.set_by if knob else ())
        ),
    )


def suggestions(registry: Registry, name: str) -> list[str]:
    """Registered names close to ``name``, for a did-you-mean."""
    close = closest(name, [*registry.knobs, *registry.external])
    return [close] if close is not None else []


def _context(registry: Registry, site: Site, cwd: Path) -> SiteContext:
    path = registry.root / site.path
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        text = []
    first = max(site.line - CONTEXT_LINES, 1)
    last = min(site.line + CONTEXT_LINES, len(text))
    lines = tuple((n, text[n - 1]) for n in range(first, last + 1))
    return SiteContext(site=site, path=shown(path, cwd), lines=lines)


def _profiles(registry: Registry, name: str, result: ScanResult) -> tuple[ProfileSetting, ...]:
    """What each profile that sets ``name`` sets it to, and which entry or rule decides."""
    settings = []
    for profile in registry.profiles:
        try:
            resolved = resolve_profile(registry, profile, result)
        except ProfileError:
            continue
        source = resolved.sources.get(name)
        if source is None:
            continue
        value = quoted(resolved.env[name]) if name in resolved.env else "unset"
        settings.append(ProfileSetting(profile, f"{value} (set by {source})"))
    return tuple(settings)
