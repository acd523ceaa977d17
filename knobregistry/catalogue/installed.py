"""Drift between the catalogue and the installed stack: the variable names that the shared
objects of the catalogued libraries contain, with the library's prefix, that the catalogue
has not reviewed (neither a setting nor a reviewed name). A maintainer runs it after an
upgrade to see the native knobs a new release added.

The binaries are found through the installed distributions' own file lists (RECORD), matched
against each library's `binaries` globs, in the environment knobs runs in.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from knobregistry.catalogue.elf_strings import NotElf, read_only_data, variable_names
from knobregistry.catalogue.load import library_records, reviewed_names
from knobregistry.catalogue.model import Library


@dataclass(frozen=True, slots=True)
class Binary:
    """A shared object an installed distribution lists, as its RECORD names it."""

    distribution: str  # `torch 2.13.0+cpu`
    relative: str  # `torch/lib/libtorch_cpu.so`, POSIX
    path: Path


@dataclass(frozen=True, slots=True, kw_only=True)
class Drift:
    """What one library's installed binaries name, and which of those names are unreviewed."""

    library: Library
    binaries: tuple[Binary, ...]
    names: frozenset[str]  # every name with the library's prefixes
    unreviewed: tuple[tuple[str, str], ...]  # (name, the first binary that has it), sorted
    unreadable: tuple[tuple[str, str], ...] = ()  # (binary, why), for files that could not be read


def _shared_objects(files: Iterable[object]) -> Iterator[str]:
    for file in files:
        text = str(file).replace("\\", "/")
        name = text.rsplit("/", 1)[-1]
        if name.endswith(".so") or ".so." in name:
            yield text


def installed_binaries(libraries: Sequence[Library]) -> dict[str, tuple[Binary, ...]]:
    """Each library's installed shared objects (by library name), sorted by relative path."""
    from importlib import metadata  # slow to import: only when the environment is asked

    wanted = [library for library in libraries if library.binaries]
    found: dict[str, list[Binary]] = {library.name: [] for library in wanted}
    seen: set[tuple[str, str]] = set()
    for dist in metadata.distributions():
        shown = f"{dist.metadata['Name']} {dist.version}"
        for relative in _shared_objects(dist.files or ()):
            for library in wanted:
                if not any(fnmatchcase(relative, glob) for glob in library.binaries):
                    continue
                if (library.name, relative) in seen:  # the same file in two search-path entries
                    continue
                seen.add((library.name, relative))
                path = Path(str(dist.locate_file(relative)))
                found[library.name].append(Binary(shown, relative, path))
    return {name: tuple(sorted(items, key=lambda b: b.relative)) for name, items in found.items()}


def drift(only: str | None = None) -> tuple[Drift, ...]:
    """For each catalogued library with prefixes (or only the library named ``only``), what
    its installed binaries name and which of those the catalogue has not reviewed."""
    libraries = [
        library
        for library in library_records()
        if library.prefixes and (only is None or library.name == only)
    ]
    binaries = installed_binaries(libraries)
    known = reviewed_names()
    out = []
    for library in libraries:
        first: dict[str, str] = {}
        unreadable = []
        for binary in binaries.get(library.name, ()):
            try:
                data = read_only_data(binary.path)
            except NotElf:
                continue  # not a native library: it names no variable
            except OSError as error:
                unreadable.append((binary.relative, error.strerror or type(error).__name__))
                continue
            for name in variable_names(data, library.prefixes):
                first.setdefault(name, binary.relative)
        out.append(
            Drift(
                library=library,
                binaries=binaries.get(library.name, ()),
                names=frozenset(first),
                unreviewed=tuple(sorted((n, b) for n, b in first.items() if n not in known)),
                unreadable=tuple(unreadable),
            )
        )
    return tuple(out)
