"""The user's key that seals what a journal asks triage to do: the command a resumed sweep
runs, and the process groups it may stop.

A journal is a file anyone who can write the triage folder can edit, and a plain digest
beside what it covers is edited as easily. So each sweep seals its command with an HMAC
(SHA-256) keyed with a secret of the user's, 32 random bytes in the user's cache folder
(``triage.key``, mode 0600, made on the first sweep). Where that key is missing (a resume
on another machine, a cleared cache), or is not the user's own file, nothing can be
verified: triage then asks, and stops no process group.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
from contextlib import suppress
from pathlib import Path

from knobregistry._io.cache import default_cache_dir
from knobregistry._io.files import opened_regular

KEY_FILE = "triage.key"
KEY_BYTES = 32


def key_path() -> Path:
    """Where the user's key is kept."""
    return default_cache_dir() / KEY_FILE


def user_key(create: bool = False) -> bytes | None:
    """The user's key; made first when ``create`` and there is none. None when there is
    none, or it is not a private regular file of this user's (then it is not trusted)."""
    path = key_path()
    found = _read(path)
    if found is not None or not create:
        return found
    with suppress(OSError):
        _make(path)
    return _read(path)


def key_id(key: bytes) -> str:
    """A name for ``key`` that does not give it away: which key sealed a journal."""
    return hashlib.sha256(b"knobs-triage-key-id\0" + key).hexdigest()[:16]


def mac(key: bytes, *fields: object) -> str:
    """The HMAC-SHA256 of ``fields`` (JSON values), hex."""
    message = json.dumps(fields, separators=(",", ":"), ensure_ascii=True).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        with opened_regular(path, follow=False) as (descriptor, info):
            if info.st_mode & 0o077 or info.st_uid != os.geteuid():
                return None
            data = os.read(descriptor, KEY_BYTES + 1)
    except OSError:
        return None
    return data if len(data) == KEY_BYTES else None


def _make(path: Path) -> None:
    """Write a new key to ``path`` whole or not at all; a key made meanwhile is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(prefix=".triage-key-", dir=path.parent)
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as file:  # mkstemp's mode is 0600
            file.write(secrets.token_bytes(KEY_BYTES))
            file.flush()
            os.fsync(file.fileno())
        with suppress(FileExistsError):  # another triage made one first: theirs is the key
            os.link(temporary, path)
    finally:
        temporary.unlink()
