"""What a sweep is, as its journal's header keeps it, and how two sweeps differ."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from knobregistry.printable import printable

FORMAT = 2  # of the journal: a knobs reads only the journals of its own format


@dataclass(frozen=True, slots=True, kw_only=True)
class Header:
    """What a sweep is: a journal resumes only a sweep with the same header."""

    command: tuple[str, ...]  # as typed
    origin: str  # the folder triage was started from (relative arguments resolve there)
    compare: str
    knobs: tuple[str, ...]  # the candidates
    profile: str | None
    runs: int
    pairs: bool
    bisect: bool
    cost: str | None  # the --cost metric, `wall` or `regex:PATTERN`
    cost_higher_is_better: bool
    registry: str  # the registry, as shown to the user
    registry_sha256: str  # of its bytes when the sweep started
    search: str | None = None  # --search, `fastest-bitwise`

    def to_json(self) -> dict[str, Any]:
        return {"journal": "knobs-triage", "format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Header:
        """The header of a line journal_format.header_problem found nothing wrong with."""
        values = {f.name: data[f.name] for f in fields(cls)}
        values["command"] = tuple(values["command"])
        values["knobs"] = tuple(values["knobs"])
        return cls(**values)


def differences(journal: Header, now: Header) -> list[str]:
    """What differs between the sweep journaled and the one asked for now, one line each."""
    lines: list[str] = []

    def differ(name: str, then: str, current: str) -> None:
        if then != current:
            lines.append(f"{name}: {then} in the journal, {current} now")

    differ("command", shown_command(journal.command), shown_command(now.command))
    differ("started from", journal.origin, now.origin)
    differ("compare", journal.compare, now.compare)
    differ("knobs", _names(journal.knobs), _names(now.knobs))
    differ("profile", journal.profile or "none", now.profile or "none")
    differ("runs", str(journal.runs), str(now.runs))
    differ("pairs", _yes(journal.pairs), _yes(now.pairs))
    differ("bisect", _yes(journal.bisect), _yes(now.bisect))
    differ("cost", _cost(journal), _cost(now))
    differ("search", journal.search or "none", now.search or "none")
    if journal.registry_sha256 != now.registry_sha256:
        lines.append(
            f"registry: {now.registry} changed since the sweep started (sha256 "
            f"{journal.registry_sha256[:12]} then, {now.registry_sha256[:12]} now), so the "
            "knobs' values may differ"
        )
    return lines


def shown_command(command: Sequence[str]) -> str:
    """A command as a shell would take it, in backquotes, safe to print on a terminal."""
    return f"`{printable(shlex.join(command))}`"


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) or "none"


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _cost(header: Header) -> str:
    if header.cost is None:
        return "none"
    return header.cost + (" (higher is better)" if header.cost_higher_is_better else "")
