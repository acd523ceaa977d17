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
in a folder per version of the scanner, ``DIR/v1/<fingerprint>/``, marked as knobs'
own when made (``last-used``, which names the fingerprint; its time says when a scan
last used the folder). The folders of other versions are pruned once no scan has used
them for two weeks, and only what a scan made goes: a folder is pruned only when it is
a folder (not a link) named as a fingerprint and holding that marker, and in it only
the entries and temporaries a scan writes, the marker last, then the folder if it is
empty. Anything else under ``DIR`` (the user's own ``DIR/v1/photos``) is never touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from scanner.source.files import SourceError, read_bytes

FORMAT = "1"
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # what 8 MiB of source with a read on every line gives
KEEP_UNUSED_DAYS = 14
USED = "last-used"  # the marker of a folder a scan made; its mtime: when a scan last used it
_FINGERPRINT = re.compile(r"[0-9a-f]{32}\Z")
_SHARD = re.compile(r"[0-9a-f]{2}\Z")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json\Z|\.tmp-.*\.json\Z")  # Cache.put's files


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


def _marker_text(fingerprint: str) -> str:
    return f"knobs scan cache {fingerprint}\n"


def prune(folder: Path, *, now: float | None = None) -> None:
    """Mark this scanner's folder as used, and delete what scans of other scanner versions
    made (an upgrade changes every key) once unused for ``KEEP_UNUSED_DAYS``: only their
    own folders and entries (see the module's docstring). Never raises: a cache that
    cannot be tidied is still a cache."""
    root = folder / f"v{FORMAT}"
    current = scanner_fingerprint()
    try:
        (root / current).mkdir(parents=True, exist_ok=True)
        _mark(root / current / USED, current)
        if not stat.S_ISDIR(os.lstat(root).st_mode):
            return  # a link: what it points to is not this cache's
        others = [entry for entry in os.scandir(root) if entry.name != current]
    except OSError:
        return
    limit = (time.time() if now is None else now) - KEEP_UNUSED_DAYS * 24 * 3600
    for other in others:
        last = _last_used(other)
        if last is not None and last < limit:
            _remove_own(Path(other.path))


def _mark(marker: Path, fingerprint: str) -> None:
    """Write the marker (when missing or not ours), or touch it: this folder is used."""
    text = _marker_text(fingerprint)
    if _read_marker(marker) == text.encode():
        marker.touch()
        return
    with contextlib.suppress(FileNotFoundError):
        marker.unlink()  # not ours (a folder made by an older knobs): made ours now
    marker.write_text(text, encoding="utf-8")


def _last_used(entry: os.DirEntry[str]) -> float | None:
    """When a scan last used the folder ``entry``; None when it is not a folder a scan
    made (not a folder, a link, not named as a fingerprint, no marker naming it)."""
    if not _FINGERPRINT.match(entry.name) or not entry.is_dir(follow_symlinks=False):
        return None
    marker = Path(entry.path, USED)
    if _read_marker(marker) != _marker_text(entry.name).encode():
        return None
    try:
        return marker.lstat().st_mtime
    except OSError:
        return None


def _read_marker(marker: Path) -> bytes | None:
    """The bytes of the regular file ``marker`` (a few: it names a fingerprint), never
    through a link; None for anything else."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        descriptor = os.open(marker, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        return os.read(descriptor, 256)
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _remove_own(folder: Path) -> None:
    """Remove the entries a scan wrote in ``folder`` (never through a link), the marker
    last, then the folder when nothing else is left in it."""
    with contextlib.suppress(OSError):
        for shard in os.scandir(folder):
            if not (_SHARD.match(shard.name) and shard.is_dir(follow_symlinks=False)):
                continue
            for entry in os.scandir(shard.path):
                if _ENTRY.match(entry.name) and entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        Path(entry.path).unlink()
            with contextlib.suppress(OSError):
                Path(shard.path).rmdir()  # only when empty
        if [entry.name for entry in os.scandir(folder)] == [USED]:
            (folder / USED).unlink()
            folder.rmdir()
