"""Documents already found valid against a schema, remembered by a hash of both.

Validating with jsonschema costs more to import than every other step of loading a
small registry. A document that passed is remembered as an empty file in the cache
folder, named by the SHA-256 of the schema's text and of the document's data (its
``repr``, which tells apart ``1``, ``"1"``, ``1.0`` and ``True`` and keeps the order of
keys), so that loading a registry that has not changed skips the validator. Only
success is remembered: a document with problems is validated each time and its
problems reported in full. A cache folder that cannot be read or written only means
validating again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from knobregistry._io.cache import default_cache_dir

FOLDER = "valid-v1"
T = TypeVar("T")


def _marker(schema_text: str, data: object) -> Path:
    digest = hashlib.sha256()
    digest.update(schema_text.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(repr(data).encode("utf-8", "surrogatepass"))
    return default_cache_dir() / FOLDER / digest.hexdigest()


def known_valid(schema_text: str, data: object) -> bool:
    """Whether ``data`` was found valid against this schema before."""
    try:
        return _marker(schema_text, data).is_file()
    except OSError:
        return False


def remember_valid(schema_text: str, data: object) -> None:
    """Remember that ``data`` is valid against this schema (an empty file, made in one step)."""
    marker = _marker(schema_text, data)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError:
        return


def problems_unless_known_valid(
    schema_text: str, data: object, find: Callable[[], Sequence[T]]
) -> Sequence[T]:
    """The problems ``find`` finds in ``data``: none, without calling it, when ``data`` was
    found valid against this schema before; a document found valid now is remembered."""
    if known_valid(schema_text, data):
        return ()
    found = find()
    if not found:
        remember_valid(schema_text, data)
    return found
