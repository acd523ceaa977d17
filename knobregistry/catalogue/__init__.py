"""The catalogue of the stack's determinism settings: one YAML file per library, shipped in
the package and validated by its JSON schema; each setting cites where it was checked."""

from knobregistry.catalogue.load import (
    CatalogueError,
    applicable,
    entries,
    for_name,
    libraries,
    library_records,
    reviewed_names,
)
from knobregistry.catalogue.model import MUST_STAY_UNSET, Entry, Kind, Library, Platform, Reviewed

__all__ = [
    "MUST_STAY_UNSET",
    "CatalogueError",
    "Entry",
    "Kind",
    "Library",
    "Platform",
    "Reviewed",
    "applicable",
    "entries",
    "for_name",
    "libraries",
    "library_records",
    "reviewed_names",
]
