"""What a change does to the code a triage was measured on: the units each knob's latest
record keeps (`code:`, see knobregistry.project.fingerprints), held at both revisions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from knobregistry.project.fingerprints import UnitChange, changed_units, latest_record, units_of
from knobregistry.registry import Registry, TriageRecord


@dataclass(frozen=True, slots=True)
class CodeChange:
    """The units of a knob's recorded code that differ between the two revisions."""

    units: tuple[UnitChange, ...]  # paths as the user reads them; lines at the head
    retriaged: bool  # the head's registry holds a new record, made on the head's code

    def sentence(self, name: str, code: str = "") -> str:
        """`PRIMUS_HC_TRITON: _hc_fwd_kernel changed; its triage is now stale`."""
        changed = [f"{code}{u.label}{code}" for u in self.units if u.line is not None]
        gone = [f"{code}{u.label}{code}" for u in self.units if u.line is None]
        parts = []
        if changed:
            parts.append(f"{_listed(changed)} changed")
        if gone:
            parts.append(f"{_listed(gone)} {'is' if len(gone) == 1 else 'are'} gone")
        what = ", ".join(parts)
        if self.retriaged:
            return f"{code}{name}{code}: {what}, and it was triaged again on the new code"
        return f"{code}{name}{code}: {what}; its triage is now stale"


def code_changes(
    base: Registry | None,
    base_root: Path,
    head: Registry | None,
    head_root: Path,
    where: Callable[[str], str],
) -> dict[str, CodeChange]:
    """Each knob whose latest record (the head's, else the base's) keeps code that differs
    between the revisions; ``where`` turns a path of the registry's folder into one the
    user reads."""
    codes: dict[str, tuple[TriageRecord | None, TriageRecord | None]] = {}
    for registry, side in ((base, 0), (head, 1)):
        if registry is None:
            continue
        for name, entry in registry.knobs.items():
            pair = list(codes.get(name, (None, None)))
            pair[side] = latest_record(entry)
            codes[name] = (pair[0], pair[1])
    recorded = {
        name: (new if new is not None and new.code else old) for name, (old, new) in codes.items()
    }
    watched = {name: r.code for name, r in recorded.items() if r is not None and r.code}
    before = units_of(base_root, watched.values())
    after = units_of(head_root, watched.values())
    found = {}
    for name, code in sorted(watched.items()):
        units = []
        for path, names in code.items():
            for unit in names:
                old, new = before.get((path, unit)), after.get((path, unit))
                if (old.digest if old else None) != (new.digest if new else None):
                    units.append(UnitChange(where(path), unit, new.line if new else None))
        if units:
            old_record, new_record = codes[name]
            retriaged = (
                new_record is not None
                and bool(new_record.code)
                and new_record != old_record
                and not changed_units(new_record.code, after)
            )
            found[name] = CodeChange(tuple(units), retriaged)
    return found


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
