"""A `knobs trace` file attached to triage records as evidence (`triage --record --trace`).

Each record then names the trace file (relative to the registry), its digest, and what
the traced run saw of the record's knob: at which level, with which value, how often;
no `read` when the run never read it (itself worth knowing: the knob did not matter to
that run).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from knobregistry._io.files import FileError, read_bytes
from knobregistry._io.jsontext import loads

MAX_BYTES = 64 * 1024 * 1024  # read no more (a path to /dev/zero would never end)


class TraceEvidenceError(Exception):
    """The file is not a trace `knobs trace --out` writes."""


@dataclass(frozen=True, slots=True)
class TraceEvidence:
    """A trace file, as records cite it."""

    file: str  # POSIX, relative to the registry's folder
    sha256: str
    reads: Mapping[str, Mapping[str, Any]]  # name -> {level, value, count}, first level first

    def for_knob(self, name: str) -> dict[str, Any]:
        """The record's `trace` field for knob ``name``."""
        cited: dict[str, Any] = {"file": self.file, "sha256": self.sha256}
        read = self.reads.get(name)
        if read is not None:
            cited["read"] = dict(read)
        return cited


def load_trace_evidence(path: Path, registry_folder: Path) -> TraceEvidence:
    """Read a trace file; raises TraceEvidenceError, naming the file and what is wrong."""
    shown = path.as_posix()
    try:
        data = read_bytes(path, MAX_BYTES)  # a regular file: not /dev/zero, not a FIFO
        document = loads(data)
    except FileError as exc:
        raise TraceEvidenceError(exc.message("read", shown)) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise TraceEvidenceError(
            f"{shown} is not JSON; write one with `knobs trace --out {shown} -- COMMAND`."
        ) from None
    reads = document.get("reads") if isinstance(document, dict) else None
    if not isinstance(reads, list) or not all(_is_read(r) for r in reads):
        raise TraceEvidenceError(
            f"{shown} holds no `reads` list of a trace; write one with "
            f"`knobs trace --out {shown} -- COMMAND`."
        )
    seen: dict[str, Mapping[str, Any]] = {}
    for read in reads:
        if read["name"] not in seen:
            summary = {"level": read["level"], "value": read["value"], "count": read["count"]}
            seen[read["name"]] = MappingProxyType(summary)
    relative = Path(os.path.relpath(path.absolute(), registry_folder.absolute())).as_posix()
    return TraceEvidence(relative, hashlib.sha256(data).hexdigest(), MappingProxyType(seen))


def _is_read(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("name"), str)
        and entry.get("level") in ("python", "c")
        and (entry.get("value") is None or isinstance(entry.get("value"), str))
        and isinstance(entry.get("count"), int)
    )
