"""What is read from an installed trainer, kept on disk: its config field lists, keyed by
the trainer package's version, and the types of its config keys, keyed by the status of the
source files they are read from.

Reading megatron-core's (or torchtitan's) config dataclasses imports torch: seconds
on every `knobs check` and pre-commit run. The list depends only on the installed
release, so it is computed once and kept as JSON in the user's cache folder
(``$KNOBS_CACHE_DIR``, else platformdirs' user cache, as scans use), under a name
made of the package, its version, where it is installed and what is read from it.
The key types every scan needs are read from the config classes' source (no import), which
still costs a warm scan tens of milliseconds: they are kept the same way.
A cache that cannot be read or written is ignored: the list is computed again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TypeVar

from knobregistry._io.cache import default_cache_dir
from knobregistry._io.jsontext import loads
from knobregistry._text.progress import step

FORMAT = 1  # bump when the stored document changes shape
T = TypeVar("T")


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``; None when it is not installed."""
    from importlib import metadata  # email, zipfile, csv: not on a warm scan's path

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def cache_file(distribution: str, origin: str, what: Sequence[str]) -> Path | None:
    """Where the field list of ``distribution`` as installed at ``origin`` is kept; None
    when the distribution has no version to key it by."""
    version = installed_version(distribution)
    if version is None:
        return None
    key = json.dumps([FORMAT, distribution, version, origin, list(what)])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return default_cache_dir() / "config-fields" / f"{distribution}-{version}-{digest}.json"


def cached_fields(
    distribution: str,
    origin: str,
    what: Sequence[str],
    compute: Callable[[], T],
    codec: tuple[Callable[[T], object | None], Callable[[object], T]],
    label: str,
) -> T:
    """The stored result, else ``compute()`` (shown as the step ``label``).

    ``codec`` turns a result into JSON (None: do not store it, a failure, so a fixed
    install is read again) and JSON back into a result (raising on a bad document)."""
    return cached_at(cache_file(distribution, origin, what), compute, codec, label)


def cached_at(
    path: Path | None,
    compute: Callable[[], T],
    codec: tuple[Callable[[T], object | None], Callable[[object], T]],
    label: str | None,
) -> T:
    """The result stored at ``path``, else ``compute()`` (shown as the step ``label``, when
    there is one), stored there (nowhere when ``path`` is None); ``codec`` as for
    ``cached_fields``."""
    encode, decode = codec
    if path is not None:
        try:
            return decode(loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            pass  # absent or unreadable: compute it
    with step(label) if label is not None else nullcontext():
        result = compute()
    document = encode(result)
    if document is not None and path is not None:
        from knobregistry._io.atomic import (
            write_atomic,  # signals and temporary files: on a miss only
        )

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps(document, sort_keys=True) + "\n")
        except OSError:
            pass  # a read-only cache: compute again next time
    return result
