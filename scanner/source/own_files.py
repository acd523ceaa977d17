"""The files knobs itself writes: never inputs of a scan, wherever they sit.

A registry (``registry.yaml`` or any name: a YAML mapping of the registry's own keys),
an export (``knobs export`` writes ``# Profile: ...`` then ``# Registry: ...`` first, in
every format a scan could read as shell or YAML), the registry's and the journal's JSON
Schemas, a baseline and a triage journal. Their text quotes the code (an undecided
reason holds ``${RAY_DATA_HOME}/ckpts``, an export sets the knobs): read as configs or
scripts, they would report the tool's own words as knobs. tests/test_own_files.py holds
these signatures to what knobs writes.
"""

from __future__ import annotations

import re
from typing import Final

# A registry's top-level keys (knobregistry/registry/schema.json, "properties").
REGISTRY_KEYS: Final = frozenset({"version", "scan", "knobs", "external", "config", "profiles"})
_TOP_KEY: Final = re.compile(rb"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:", re.MULTILINE)
_EXPORT: Final = re.compile(rb"\A# Profile: [^\n]*\n# Registry: ")
# How the JSON files knobs writes start (within their first lines).
_JSON_MARKS: Final = (
    b'"$id": "urn:knobregistry:',  # the registry's schema
    b'"$id": "https://knobregistry.dev/schema/',  # the journal's schema
    b'"about": "Findings of `knobs check`',  # a baseline
    b'"journal": "knobs-triage"',  # a triage journal's header
)
_HEAD: Final = 512


def written_by_knobs(data: bytes) -> bool:
    """Whether ``data`` is a file knobs writes (a registry, an export, a schema, a
    baseline or a journal)."""
    if _EXPORT.match(data):
        return True
    head = data[:_HEAD]
    if head.lstrip().startswith(b"{") and any(mark in head for mark in _JSON_MARKS):
        return True
    if b"knobs" not in data or b"version" not in data:
        return False
    keys = {m.decode("ascii") for m in _TOP_KEY.findall(data)}
    return {"version", "knobs"} <= keys <= REGISTRY_KEYS
