"""A content-addressed cache of per-file outcomes.

An entry is keyed by a hash of the file's bytes (or of its narrowed text: see
``scanner.work``), the scanner's own code, the options that change a file's
result, and the wrappers the file can call. Each
entry is one JSON file whose first line is a checksum of the rest, written to a
temporary file and renamed into place, so two scans can share a cache and a
truncated or corrupted entry is detected, ignored and rewritten. An entry is read
only from a regular file of at most ``MAX_ENTRY_BYTES``, and the JSON it holds is
checked field by field when decoded: anything else (a FIFO, a link to a device, a
forged entry with a valid checksum, nested too deep or with a field of the wrong
type) is a miss, which the scan recomputes and overwrites. Entries live
in a folder per version of the scanner; the folders of other versions are
deleted once no scan has used them for two weeks.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from scanner.source.files import SourceError, read_bytes

FORMAT = "1"
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # what 8 MiB of source with a read on every line gives
KEEP_UNUSED_DAYS = 14
USED = "last-used"  # a file whose mtime says when a scan last used its folder


@lru_cache(maxsize=1)
def scanner_fingerprint() -> str:
    """A hash of the scanner package's source, subpackages included: any change to it
    invalidates the cache."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(FORMAT.encode(), digest_size=16)
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def entry_key(data: bytes, *parts: str) -> str:
    """The cache key of a file's bytes under ``parts`` (options, wrapper fingerprint)."""
    digest = hashlib.sha256(data)
    digest.update(scanner_fingerprint().encode())
    for part in parts:
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


class CacheError(Exception):
    """The cache folder cannot be used; the scan goes on without it."""


class Cache:
    """One cache folder: the entries of this version of the scanner."""

    def __init__(self, folder: Path) -> None:
        self.given = folder
        self.folder = folder / f"v{FORMAT}" / scanner_fingerprint()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The stored payload, or None when absent, unreadable, truncated or corrupted."""
        try:
            raw = read_bytes(self._path(key), MAX_ENTRY_BYTES)
        except SourceError:
            return None
        checksum, _, payload = raw.partition(b"\n")
        if hashlib.blake2b(payload, digest_size=16).hexdigest().encode() != checksum:
            return None
        try:
            # Nesting deeper than the recursion limit raises RecursionError; what is
            # shallower is checked field by field (scanner.run.codec).
            return json.loads(payload)
        except (ValueError, RecursionError):
            return None

    def put(self, key: str, payload: Any) -> None:
        """Store ``payload`` atomically; raises CacheError when the folder is not writable."""
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        checksum = hashlib.blake2b(body, digest_size=16).hexdigest().encode()
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(checksum + b"\n" + body)
                Path(temporary).replace(path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise CacheError(f"{self.given}: {exc.strerror or exc}") from None


def prune(folder: Path, *, now: float | None = None) -> None:
    """Mark this scanner's entries as used, and delete those of other scanner versions
    (an upgrade changes every key) once unused for ``KEEP_UNUSED_DAYS``. Never raises:
    a cache that cannot be tidied is still a cache."""
    root = folder / f"v{FORMAT}"
    current = scanner_fingerprint()
    try:
        (root / current).mkdir(parents=True, exist_ok=True)
        (root / current / USED).touch()
        others = [child for child in root.iterdir() if child.name != current and child.is_dir()]
    except OSError:
        return
    limit = (time.time() if now is None else now) - KEEP_UNUSED_DAYS * 24 * 3600
    for other in others:
        try:
            marker = other / USED
            last = marker.stat().st_mtime if marker.exists() else other.stat().st_mtime
        except OSError:
            continue
        if last < limit:
            shutil.rmtree(other, ignore_errors=True)
