"""Which catalogued libraries a project uses, and on which platform: what `knobs init`
needs to propose the stack's determinism settings.

A library is used when a package that brings it is installed in the environment knobs runs
in, named in the project's requirements files or pyproject.toml, or imported by its code.
Nothing is proposed for a project that uses none of them. The platform is the one given,
else the one the installed torch was built for (its local
version label: +cu121, +rocm6.2, +cpu); otherwise it is undecided, never guessed.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from knobregistry.catalogue import Entry, Kind, Platform, applicable, entries

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_LABEL = re.compile(r"\+(cu\d+|rocm[\d.]+|cpu)\b")
_NOT_THE_PROJECT = frozenset({"site-packages", "dist-packages", "node_modules", "__pycache__"})
MAX_SOURCE_BYTES = 1_000_000  # a Python file larger than this is not searched for imports


def normal(package: str) -> str:
    """A distribution name as PyPI compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", package).lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class StackUse:
    """The catalogue entries that apply to a project, and how that was decided."""

    entries: tuple[Entry, ...]  # set by the bitwise profile
    by_hand: tuple[Entry, ...]  # shared variables: their value is added where a launcher sets them
    # Settings the project's own launchers set, whatever the platform: a launcher that
    # exports NCCL_ALGO=Tree is a launcher the recipe must override (set by the profile too).
    launched: tuple[Entry, ...] = ()
    # Settings of one platform, where none is decided, that the project's own code reads as a
    # switch on when unset and that the catalogue's value turns off: the project holds the
    # library's gate, so its deterministic value is proposed (where the library does not run,
    # the switch it turns off is never taken).
    own: tuple[Entry, ...] = ()
    found: Mapping[str, str]  # package or module -> how it was found
    platform: Platform | None
    platform_reason: str  # how the platform was decided, or why it was not


def installed_packages() -> dict[str, str]:
    """Every distribution installed where knobs runs, normalised -> its version."""
    from importlib import metadata  # slow to import: only when the environment is asked

    out: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            out[normal(name)] = dist.version
    return out


def project_packages(folder: Path) -> dict[str, str]:
    """The packages named in ``folder``'s requirements*.txt and pyproject.toml's project
    dependencies (optional ones too), normalised -> the file that names them."""
    out: dict[str, str] = {}
    for file in sorted(folder.glob("requirements*.txt")):
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            match = _REQUIREMENT.match(line) if line and not line.startswith("-") else None
            if match is not None and "://" not in line.split("@", 1)[0]:
                out.setdefault(normal(match.group(1)), file.name)
    for name in _pyproject_dependencies(folder / "pyproject.toml"):
        out.setdefault(normal(name), "pyproject.toml")
    return out


def _pyproject_dependencies(path: Path) -> Iterable[str]:
    try:
        project = tomllib.loads(path.read_text(encoding="utf-8")).get("project") or {}
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return
    lists = [project.get("dependencies") or []]
    lists.extend((project.get("optional-dependencies") or {}).values())
    for items in lists:
        for item in items if isinstance(items, list) else ():
            match = _REQUIREMENT.match(item) if isinstance(item, str) else None
            if match is not None:
                yield match.group(1)


def imported_modules(paths: Sequence[Path], wanted: Iterable[str]) -> dict[str, str]:
    """Which of the ``wanted`` top-level modules the Python files under ``paths`` import,
    each -> the first file (sorted) that does."""
    remaining = set(wanted)
    found: dict[str, str] = {}
    for file, text in _sources(paths):
        if not remaining:
            break
        for module in remaining.intersection(_IMPORT.findall(text)):
            found[module] = file.as_posix()
        remaining.difference_update(found)
    return found


def named_modules(paths: Sequence[Path], wanted: Iterable[str]) -> frozenset[str]:
    """Which of the ``wanted`` dotted modules (``transformer_engine.jax``) the Python files
    under ``paths`` name: ``a.b`` as a word (an import of it or of a module under it, an
    attribute path through it), or ``from a import b``."""
    remaining = set(wanted)
    patterns = {m: _named(m) for m in remaining}
    found: set[str] = set()
    for _, text in _sources(paths):
        if not remaining:
            break
        found.update(m for m in remaining if patterns[m].search(text))
        remaining.difference_update(found)
    return frozenset(found)


def _named(module: str) -> re.Pattern[str]:
    package, _, last = module.rpartition(".")
    return re.compile(
        rf"\b{re.escape(module)}\b"
        rf"|\bfrom[ \t]+{re.escape(package)}[ \t]+import[ \t(]+(?:[\w\s,\\]*[\s,(])?"
        rf"{re.escape(last)}\b"
    )


def _sources(paths: Sequence[Path]) -> Iterator[tuple[Path, str]]:
    """Each Python file under ``paths`` (sorted; not in a hidden folder or an environment,
    not over MAX_SOURCE_BYTES) with its text."""
    files = sorted(
        {
            f
            for p in paths
            for f in ([p] if p.is_file() else p.rglob("*.py"))
            if f.suffix == ".py" and not _skipped(f.relative_to(p) if f != p else Path(f.name))
        }
    )
    for file in files:
        try:
            if file.stat().st_size > MAX_SOURCE_BYTES:
                continue
            yield file, file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def _skipped(relative: Path) -> bool:
    """A file inside a hidden folder or an installed environment (.venv, site-packages):
    what its packages import says nothing of the project."""
    return any(part.startswith(".") or part in _NOT_THE_PROJECT for part in relative.parts[:-1])


def torch_platform(installed: Mapping[str, str]) -> tuple[Platform | None, str]:
    """The platform of the installed torch from its version's local label, and why."""
    version = installed.get("torch")
    if version is None:
        return None, "torch is not installed here to tell"
    label = _LABEL.search(version)
    if label is None:
        return None, f"the installed torch {version} does not name its platform"
    word = label.group(1)
    platform = Platform.CUDA if word.startswith("cu") else Platform(word.rstrip("0123456789."))
    return platform, f"the installed torch is {version}"


def stack_use(
    *,
    folder: Path,
    paths: Sequence[Path],
    platform: Platform | None,
    environment: bool,
    written: Collection[str] = (),
    switches: Mapping[str, str] | None = None,
    read: Collection[str] = (),
) -> StackUse:
    """What the catalogue proposes for the project in ``folder`` scanning ``paths``; with
    ``environment``, packages installed where knobs runs count too; ``written``: the
    variables the project's launchers set, whose catalogue settings are proposed whatever
    the platform; ``switches``: the variables the project's code reads as a switch on when
    unset, each with the value that turns it off (see ``StackUse.own``); ``read``: the
    variables the project's code reads, the only ones whose ``where_read`` settings apply."""
    installed = installed_packages() if environment else {}
    found = {name: f"named in {file}" for name, file in project_packages(folder).items()}
    for name, version in installed.items():
        found.setdefault(name, f"installed ({version})")
    modules = {m for e in entries() for m in e.modules}
    for module, file in imported_modules(paths, modules).items():
        found.setdefault(normal(module), f"imported in {file}")
    if platform is not None:
        reason = "given with --platform"
    elif environment:
        platform, reason = torch_platform(installed)
    else:
        reason = "no --platform, and no --environment to read it from the installed torch"
    catalogued = {normal(p) for e in entries() for p in e.packages}
    found = {k: v for k, v in sorted(found.items()) if k in catalogued}
    # A project using none of the catalogued libraries: not even Python's setting is proposed.
    chosen = applicable(found, platform) if found else ()
    chosen = tuple(e for e in chosen if not e.where_read or e.name in read)
    proposed = {e.name for e in chosen}
    launched = tuple(
        e
        for e in entries()
        if e.kind is Kind.VARIABLE and not e.shared and e.name in written and e.name not in proposed
    )
    taken = proposed | {e.name for e in launched}
    own = _own_switches(found, switches or {}, taken) if platform is None and found else ()
    scoped = {m for e in (*chosen, *launched, *own) for m in (*e.read_by, *e.read_otherwise_by)}
    named = named_modules(paths, scoped) if scoped else frozenset()
    return StackUse(
        entries=tuple(e for e in chosen if not e.shared and _in_scope(e, named)),
        by_hand=tuple(e for e in chosen if e.shared and _in_scope(e, named)),
        launched=tuple(e for e in launched if _in_scope(e, named)),
        own=tuple(e for e in own if _in_scope(e, named)),
        found=MappingProxyType(found),
        platform=platform,
        platform_reason=reason,
    )


def _own_switches(
    found: Mapping[str, str], switches: Mapping[str, str], taken: Collection[str]
) -> tuple[Entry, ...]:
    """The entries of one platform whose deterministic value is the value that turns off a
    switch the project's code reads, on when unset (``switches``), for a library it uses."""
    return tuple(
        e
        for e in entries()
        if e.platform is not Platform.ANY
        and e.kind is Kind.VARIABLE
        and not e.shared
        and e.name not in taken
        and isinstance(e.deterministic, str)
        and switches.get(e.name) == e.deterministic
        and (not e.packages or any(normal(p) in found for p in e.packages))
    )


def _in_scope(entry: Entry, named: Collection[str]) -> bool:
    """Whether ``entry`` applies to a project whose code names the ``named`` modules: one of
    those that read it to the entry's effect, and none that read it otherwise."""
    if not entry.read_by and not entry.read_otherwise_by:
        return True
    if entry.read_by and not any(m in named for m in entry.read_by):
        return False
    return not any(m in named for m in entry.read_otherwise_by)
