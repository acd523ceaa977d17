"""Load a registry: read, parse, validate every part at once, then build the records."""

from __future__ import annotations

import os
from pathlib import Path

from knobregistry.registry.build import build_registry
from knobregistry.registry.document import Document, parse_document, read_document
from knobregistry.registry.model import Registry, RegistryError, RegistryProblem
from knobregistry.registry.validate import validate_document


def load_registry(path: str | os.PathLike[str], *, display: str | None = None) -> Registry:
    """Load and validate a registry file; raises RegistryError with every problem in it.

    ``display`` is the path shown in messages (default: ``path`` as given).
    """
    file = Path(path)
    return _finish(read_document(file, display), file)


def loads_registry(
    text: str, path: str | os.PathLike[str] = "registry.yaml", *, display: str | None = None
) -> Registry:
    """Load a registry from text (a git object, a test); ``path`` sets its root folder."""
    file = Path(path)
    shown = display if display is not None else file.as_posix()
    return _finish(parse_document(text, shown), file)


def registry_problems(
    path: str | os.PathLike[str], *, display: str | None = None
) -> tuple[RegistryProblem, ...]:
    """Every problem in a registry file, or an empty tuple when it is valid."""
    try:
        doc = read_document(Path(path), display)
    except RegistryError as exc:
        return exc.problems
    return validate_document(doc)


def _finish(doc: Document, file: Path) -> Registry:
    problems = validate_document(doc)
    if problems:
        raise RegistryError(problems)
    return build_registry(doc, file)
