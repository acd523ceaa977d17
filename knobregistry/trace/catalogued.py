"""The reads of a trace that the catalogue knows: each labelled with its library, what it
controls, the deterministic value (or that it must stay unset) and what the run had
("NCCL / RCCL: collective algorithm; deterministic: Ring; this run: unset")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from knobregistry.catalogue import MUST_STAY_UNSET, Kind, for_name
from knobregistry.trace.model import Read, Seen


@dataclass(frozen=True, slots=True)
class Catalogued:
    """A catalogued variable the run read, and what it held."""

    name: str
    libraries: tuple[str, ...]
    meaning: str
    deterministic: str | None  # None: it must stay unset, or the libraries that read it disagree
    seen: tuple[str, ...]  # what the run had, each as shown: `unset`, `'Ring'`, `set (secret)`
    must_stay_unset: bool = False  # a deterministic run has it unset (every library agrees)

    def label(self) -> str:
        """The entry, and this run's value."""
        value = self.deterministic if self.deterministic is not None else "differs by library"
        if self.must_stay_unset:
            value = MUST_STAY_UNSET
        return (
            f"{' / '.join(self.libraries)}: {self.meaning}; deterministic: {value}; "
            f"this run: {', '.join(self.seen)}"
        )


def _seen(read: Read) -> str:
    if read.seen is Seen.WITHHELD:
        return "set (secret)"
    if read.seen is Seen.LONG:
        return "set (too long to keep)"
    if read.seen is Seen.OTHERS:
        return "other values"
    return "unset" if read.value is None else repr(read.value)


def catalogued(reads: Iterable[Read]) -> tuple[Catalogued, ...]:
    """One label per catalogued variable the run read, by name."""
    by_name: dict[str, list[Read]] = {}
    for read in reads:
        by_name.setdefault(read.name, []).append(read)
    out = []
    for name in sorted(by_name):
        found = [e for e in for_name(name) if e.kind is Kind.VARIABLE]
        if not found:
            continue
        values = {e.deterministic for e in found}
        value = values.pop() if len(values) == 1 else None
        out.append(
            Catalogued(
                name=name,
                libraries=tuple(dict.fromkeys(e.library for e in found)),
                meaning=found[0].meaning,
                deterministic=found[0].value_text if value is not None else None,
                seen=tuple(dict.fromkeys(_seen(r) for r in by_name[name])),
                must_stay_unset=all(e.must_stay_unset for e in found),
            )
        )
    return tuple(out)
