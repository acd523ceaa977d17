"""A variable the program sets itself, to either value: its own state, not a setting.

Where the tree's own Python code writes a variable both to the value a recipe would write
and to another (``if full_finetuning: os.environ[N] = "1" else: os.environ[N] = "0"`` at
every load; ``os.environ[N] = "1"`` around one call and ``"0"`` after another), the
program chooses the value at run time from its own arguments or state: what a recipe sets
is overwritten, or overrides what the program asked a call for. Whatever a branch of the
variable reaches, the code does not say the recipe's value is a kernel choice: unknown.
A ``setdefault`` is a default the user's value wins over, and a launcher's ``export`` is a
launch setting: neither is the program's own state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from scanner.languages import Language
from scanner.model import Knob, Role, Write, WriteKind
from scanner.reach.mode_undone import mode_undone, undoing_writes
from scanner.roles import ACTED_ON, CodeEvidence, Evidence, reads_code
from scanner.suite_files import TEST_FILE

# The writes that replace the value a run started with (not a default, not a removal).
_SETS = (WriteKind.SET, WriteKind.PUTENV)


def program_writes(writes: Iterable[Write]) -> dict[str, list[Write]]:
    """Per variable, the writes of a known value the tree's own Python code makes."""
    found: dict[str, list[Write]] = {}
    for write in writes:
        if (
            write.name is not None
            and write.value is not None
            and write.kind in _SETS
            and write.language is Language.PYTHON
            and not TEST_FILE.search(write.path)
        ):
            found.setdefault(write.name, []).append(write)
    return found


def driven(
    knob: Knob, evidence: Evidence | None, written: Mapping[str, Sequence[Write]]
) -> Evidence | None:
    """``evidence``, or unknown where the program writes the knob itself both to the value
    the evidence would have a recipe write and to a value its gates read the other way (a
    third value, ``"partial"``, is a mode of its own, not the switch turned back)."""
    if evidence is None or evidence.role not in ACTED_ON or evidence.value is None:
        return evidence
    writes = sorted(written.get(knob.name, ()), key=lambda w: w.sort_key)
    same = next((w for w in writes if w.value == evidence.value), None)
    opposite = _opposite(knob, evidence.value)
    other = next((w for w in writes if w.value in opposite), None)
    if same is None or other is None:
        return evidence
    return Evidence(
        Role.UNKNOWN,
        f"{evidence.reason}; but the program sets it itself, to {same.value!r} at "
        f"{same.path}:{same.line} and to {other.value!r} at {other.path}:{other.line}: its "
        "own state at run time, which a recipe's value would override or lose; a person "
        "must say",
    )


class DrivenEvidence:
    """``code``'s evidence of each knob, unknown where the program drives the knob itself,
    and a kernel choice where the tree's launcher undoes its deterministic mode on one side
    (scanner.reach.mode_undone; ``knobs``: the scan's, to read a mode's evidence)."""

    def __init__(
        self, code: CodeEvidence, writes: Sequence[Write], knobs: Iterable[Knob] = ()
    ) -> None:
        self.code = code
        self.written = program_writes(writes)
        self.undoing = undoing_writes(writes)
        self.knobs = {knob.name: knob for knob in knobs}
        self._busy: set[str] = set()

    def evidence(self, knob: Knob) -> Evidence | None:
        """The knob's evidence (``driven``, then ``mode_undone``)."""
        if knob.name in self._busy:
            return None
        self._busy.add(knob.name)
        try:
            found = driven(knob, self.code.evidence(knob), self.written)
            return mode_undone(knob, found, self.undoing, self.knobs, self._mode_of)
        finally:
            self._busy.discard(knob.name)

    def _mode_of(self, name: str) -> Evidence | None:
        knob = self.knobs[name]
        return self.evidence(knob) if reads_code(knob) else None


def _opposite(knob: Knob, value: str) -> frozenset[str]:
    """The values the knob's gates read the other way from ``value``: its off values where
    ``value`` turns it on, its on values where ``value`` turns it off."""
    off = {v for site in knob.sites for v in site.gate.off_values}
    on = {v for site in knob.sites for v in site.gate.on_values}
    if value in on and value not in off:
        return frozenset(off - on)
    if value in off and value not in on:
        return frozenset(on - off)
    return frozenset()
