"""The code's evidence for each knob's role, kept beside the stored scan.

Following every gate to what it reaches reads far more of the tree than the scan does
(on torch, some 600 modules parsed), so a warm scan of a tree where nothing changed reads
the evidence back from one cache entry, keyed as the stored scan is by every file's status,
instead of following the gates again.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from scanner.model import Knob, Role
from scanner.roles import CodeEvidence, Evidence
from scanner.run.cache import Cache, CacheError, entry_key
from scanner.run.snapshot import Status


def key(whole: str, found: Mapping[str, Status]) -> str:
    """The key of the evidence of the scan stored under ``whole`` with these statuses."""
    return entry_key(b"role-evidence", whole, json.dumps(dict(found), sort_keys=True))


class KeptEvidence:
    """The evidence read back from the cache where it was kept, the rest from ``code``;
    ``found`` holds every knob's, to keep."""

    def __init__(self, code: CodeEvidence, kept: Mapping[str, Evidence | None] | None) -> None:
        self.code = code
        self.kept = dict(kept or {})
        self.found: dict[str, Evidence | None] = {}
        self.computed = 0

    def evidence(self, knob: Knob) -> Evidence | None:
        """The knob's evidence, as kept when it was."""
        if knob.name in self.kept:
            found = self.kept[knob.name]
        else:
            found = self.code.evidence(knob)
            self.computed += 1
        self.found[knob.name] = found
        return found


def load(cache: Cache, entry: str) -> dict[str, Evidence | None] | None:
    """The kept evidence by knob name; None when there is none or it is damaged."""
    stored = cache.get(entry)
    if not isinstance(stored, dict):
        return None
    found: dict[str, Evidence | None] = {}
    try:
        for name, item in stored.items():
            found[name] = None if item is None else _decoded(item)
    except (KeyError, TypeError, ValueError):
        return None  # a damaged or forged entry: a miss
    return found


def save(cache: Cache, entry: str, found: Mapping[str, Evidence | None]) -> None:
    """Keep the evidence (nothing when the cache folder cannot be written)."""
    payload = {name: None if e is None else _encoded(e) for name, e in sorted(found.items())}
    with contextlib.suppress(CacheError):
        cache.put(entry, payload)


def _encoded(evidence: Evidence) -> list[Any]:
    return [evidence.role.value, evidence.reason, evidence.value, evidence.default_reaches]


def _decoded(item: Any) -> Evidence:
    role, reason, value, reaches = item
    if not isinstance(reason, str) or not (value is None or isinstance(value, str)):
        raise TypeError(item)
    if not isinstance(reaches, bool):
        raise TypeError(item)
    return Evidence(Role(role), reason, value, reaches)
