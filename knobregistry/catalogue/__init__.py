"""The catalogue of the stack's determinism settings: one YAML file per library, shipped in
the package and validated by its JSON schema; each setting cites where it was checked."""

from knobregistry.catalogue.load import (
    CatalogueError,
    applicable,
    entries,
    for_name,
    libraries,
)
from knobregistry.catalogue.model import Entry, Kind, Platform

__all__ = [
    "CatalogueError",
    "Entry",
    "Kind",
    "Platform",
    "applicable",
    "entries",
    "for_name",
    "libraries",
]
