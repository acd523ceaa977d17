"""What a sweep is, as its journal's header keeps it, and how two sweeps differ."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from knobregistry.triage import request as requests
from knobregistry.triage.request import SweepRequest
from knobregistry.triage.request import shown_command as shown_command  # callers' import

FORMAT = 2  # of the journal: a knobs reads only the journals of its own format


@dataclass(frozen=True, slots=True, kw_only=True)
class Header(SweepRequest):
    """What a sweep is: its request (resolved: the candidates, the compare mode and cost as
    parsed), where it started and the registry it reads. A journal resumes only a sweep
    with the same header."""

    origin: str  # the folder triage was started from (relative arguments resolve there)
    registry: str  # the registry, as shown to the user
    registry_sha256: str  # of its bytes when the sweep started

    def to_json(self) -> dict[str, Any]:
        return {"journal": "knobs-triage", "format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Header:
        """The header of a line journal_format.header_problem found nothing wrong with."""
        return cls(
            **requests.request_values(data),
            origin=data["origin"],
            registry=data["registry"],
            registry_sha256=data["registry_sha256"],
        )


def differences(journal: Header, now: Header) -> list[str]:
    """What differs between the sweep journaled and the one asked for now, one line each."""
    lines = requests.differences(journal, now)
    if journal.origin != now.origin:
        lines.append(f"started from: {journal.origin} in the journal, {now.origin} now")
    if journal.registry_sha256 != now.registry_sha256:
        lines.append(
            f"registry: {now.registry} changed since the sweep started (sha256 "
            f"{journal.registry_sha256[:12]} then, {now.registry_sha256[:12]} now), so the "
            "knobs' values may differ"
        )
    return lines
