"""The reads of a trace that the catalogue knows: each labelled with its library, what it
controls, the deterministic value and what the run had ("NCCL / RCCL: collective
algorithm; deterministic: Ring; this run: unset")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from knobregistry.catalogue import Kind, for_name
from knobregistry.trace.model import Read, Seen


@dataclass(frozen=True, slots=True)
class Catalogued:
    """A catalogued variable the run read, and what it held."""

    name: str
    libraries: tuple[str, ...]
    meaning: str
    deterministic: str | None  # None: the libraries that read it disagree
    seen: tuple[str, ...]  # what the run had, each as shown: `unset`, `'Ring'`, `set (secret)`

    def label(self) -> str:
        """The entry, and this run's value."""
        value = self.deterministic if self.deterministic is not None else "differs by library"
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
        values = {e.value_text for e in found}
        out.append(
            Catalogued(
                name=name,
                libraries=tuple(dict.fromkeys(e.library for e in found)),
                meaning=found[0].meaning,
                deterministic=values.pop() if len(values) == 1 else None,
                seen=tuple(dict.fromkeys(_seen(r) for r in by_name[name])),
            )
        )
    return tuple(out)
