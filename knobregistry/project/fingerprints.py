"""What a triage verdict was measured on: the code each knob gates, recorded as a digest per
unit (`code:` in a record), and held against the code as it is now.

`knobs triage --record` and `knobs fingerprint --record` write a knob's units
(``scanner.gated``: the functions its sites sit in, the branches its value decides and
what they reach) into its records; `knobs check` (KNB009) and `knobs diff` find a unit
whose digest no longer matches, or that is gone. Units the code reaches now and the
record does not name are not compared: reaching more is what a newer knobs may do, and an
edit that makes the code reach more changes a unit the record names (the caller).
"""

from __future__ import annotations

import importlib.metadata
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from knobregistry.project.scan_for import scan_for
from knobregistry.registry import KnobEntry, Registry, TriageRecord, Verdict
from scanner import ScanResult
from scanner.code_units import MODULE, Unit
from scanner.gated import GatedUnit, gated_code, units_now

Code = Mapping[str, Mapping[str, str]]  # a record's `code:`: by file, each unit's digest
# The versions of a record that name the stack's packages, and the distributions that
# install each (python, the driver, CUDA and ROCm are the machine's, not the project's).
STACK_PACKAGES: Mapping[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "triton": ("triton", "pytorch-triton-rocm", "pytorch-triton"),
    "megatron-core": ("megatron-core", "megatron_core"),
    "transformer-engine": ("transformer-engine", "transformer_engine"),
    "torchtitan": ("torchtitan",),
    "vllm": ("vllm",),
    "deepspeed": ("deepspeed",),
}


def record_code(units: Iterable[GatedUnit]) -> dict[str, dict[str, str]]:
    """A knob's units as a record's `code:` mapping, files and names sorted."""
    code: dict[str, dict[str, str]] = {}
    for unit in sorted(units, key=lambda u: (u.path, u.name)):
        code.setdefault(unit.path, {})[unit.name] = unit.digest
    return code


def code_of(
    registry: Registry, names: Iterable[str], scan: ScanResult | None = None
) -> dict[str, dict[str, dict[str, str]]]:
    """The `code:` of each knob of ``names`` the scan of the registry's scope finds (and
    whose gated code is not empty), as a record writes it; ``scan`` saves scanning again."""
    found = scan if scan is not None else scan_for(registry)
    gated = gated_code(found, registry.root, names)
    return {name: record_code(units) for name, units in gated.items() if units}


def latest_record(entry: KnobEntry) -> TriageRecord | None:
    """The knob's latest record with a verdict (an `error` is none): the latest date, the
    last written of that day."""
    records = entry.evidence.records if entry.evidence is not None else ()
    judged = [(r.date, i, r) for i, r in enumerate(records) if r.verdict is not Verdict.ERROR]
    return max(judged, key=lambda t: (t[0], t[1]))[2] if judged else None


@dataclass(frozen=True, slots=True)
class UnitChange:
    """A unit of a record's code that no longer has its recorded digest."""

    path: str  # relative to the registry's folder
    name: str
    line: int | None  # where it is now; None: it is gone

    def shown(self, where: str) -> str:
        """`_rope_kernel (toymodel/kernels.py:54) changed`, `rope is gone from
        toymodel/kernels.py`; ``where``: the path as the user reads it."""
        if self.line is None:
            return f"{self.label} is gone from {where}"
        return f"{self.label} ({where}:{self.line}) changed"

    @property
    def label(self) -> str:
        """`_rope_kernel`, `the module-level code`."""
        return "the module-level code" if self.name == MODULE else self.name


Now = Mapping[tuple[str, str], Unit | None]  # each unit as the files hold it now


def units_of(root: Path, codes: Iterable[Code]) -> Now:
    """Every unit ``codes`` name, as the files under ``root`` hold it now (each file read
    once)."""
    wanted: dict[str, set[str]] = {}
    for code in codes:
        for path, units in code.items():
            wanted.setdefault(path, set()).update(units)
    return units_now(root, {path: sorted(names) for path, names in sorted(wanted.items())})


def changed_units(code: Code, now: Now) -> list[UnitChange]:
    """The units of ``code`` whose digest differs from ``now`` (see ``units_of``), or that
    are gone, in the record's order."""
    changes = []
    for path, units in code.items():
        for name, digest in units.items():
            unit = now.get((path, name))
            if unit is None:
                changes.append(UnitChange(path, name, None))
            elif unit.digest != digest:
                changes.append(UnitChange(path, name, unit.line))
    return changes


@dataclass(frozen=True, slots=True)
class StackChange:
    """A package of the stack at another version where knobs runs than in a record."""

    package: str
    recorded: str
    installed: str


def stack_changes(record: TriageRecord, installed: Mapping[str, str]) -> list[StackChange]:
    """The packages of ``record``'s versions that ``installed`` has at another release (a
    local build label, `+cpu`, `+rocm6.4`, is the machine's and left out)."""
    changes = []
    for package in STACK_PACKAGES:
        recorded, now = record.versions.get(package), installed.get(package)
        if recorded is not None and now is not None and _release(recorded) != _release(now):
            changes.append(StackChange(package, recorded, now))
    return changes


def installed_stack() -> dict[str, str]:
    """The versions of the stack's packages installed beside knobs (read from their
    metadata; nothing is imported)."""
    found = {}
    for package, distributions in STACK_PACKAGES.items():
        for distribution in distributions:
            try:
                found[package] = importlib.metadata.version(distribution)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
    return found


def _release(version: str) -> str:
    return version.split("+", 1)[0].strip()


def retriage_command(names: Sequence[str], record: TriageRecord, registry_shown: str) -> str:
    """The `knobs triage` command that measures ``names`` again as ``record`` did."""
    words = ["knobs", "triage"]
    if registry_shown != "registry.yaml":
        words += ["--registry", registry_shown]
    if record.profile is not None:
        words += ["--profile", record.profile]
    for name in names:
        words += ["--knob", name]
    if record.runs is not None and record.runs != 2:
        words += ["--runs", str(record.runs)]
    if record.compare is not None and record.compare != "stdout":
        words += ["--compare", record.compare]
    words.append("--record")
    text = shlex.join(words) + " --"
    command = record.command
    if command is None:
        return text + " COMMAND"
    if isinstance(command, str):
        return f"{text} sh -c {shlex.quote(command)}"
    return f"{text} {shlex.join(command)}"


def names_listed(names: Sequence[str]) -> str:
    """`A`, `A and B`, `A, B and C`."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class Status(str, Enum):
    """How a knob's code stands against its latest record."""

    MATCHES = "matches"  # the record keeps the code, and it is the code now
    DIFFERS = "differs"  # the record keeps code that changed since
    NO_CODE = "no-code"  # the record keeps no code (written before knobs kept it)
    NO_RECORD = "no-record"  # the knob has no record with a verdict
    NOT_READ = "not-read"  # no Python code in the scan scope reads it


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """A knob's gated code now, and how it stands against its latest record."""

    name: str
    triage: str | None  # the registry's status (None: not registered)
    units: tuple[GatedUnit, ...]
    status: Status
    record: TriageRecord | None = None
    index: int | None = None  # the record's place in `evidence.records`
    changes: tuple[UnitChange, ...] = ()


def fingerprints(
    registry: Registry, names: Sequence[str] | None = None, scan: ScanResult | None = None
) -> list[Fingerprint]:
    """The code each knob of ``names`` gates (default: every registered knob with a
    record), and how it stands against its latest record; in name order."""
    if names is None:
        names = [n for n, e in registry.knobs.items() if latest_record(e) is not None]
    found = scan if scan is not None else scan_for(registry)
    gated = gated_code(found, registry.root, names)
    entries = {n: registry.knobs.get(n) for n in names}
    records = {n: latest_record(e) if e is not None else None for n, e in entries.items()}
    now = units_of(registry.root, (r.code for r in records.values() if r is not None))
    result = []
    for name in sorted(set(names)):
        entry, record = entries[name], records[name]
        units = gated.get(name, ())
        status = Status.NOT_READ
        changes: tuple[UnitChange, ...] = ()
        if record is not None and record.code:
            changes = tuple(changed_units(record.code, now))
            status = Status.DIFFERS if changes else Status.MATCHES
        elif not units:
            status = Status.NOT_READ
        elif record is not None:
            status = Status.NO_CODE
        else:
            status = Status.NO_RECORD
        index = None
        if record is not None and entry is not None and entry.evidence is not None:
            index = entry.evidence.records.index(record)
        result.append(
            Fingerprint(
                name=name,
                triage=entry.triage.value if entry is not None else None,
                units=units,
                status=status,
                record=record,
                index=index,
                changes=changes,
            )
        )
    return result
