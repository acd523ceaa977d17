"""KNB009 StaleTriage: a verdict measured on code that has changed since.

A knob triaged `reproducible` (or kept on by a profile's verified run) whose latest
record names the code it gated (`code:`, see fingerprints.py) is held against the files
as they are now: a unit whose digest differs, or that is gone, makes the verdict stale.
An error when a `bitwise` profile keeps the knob on, unless a waiver (`expires`) holds;
else a warning. Two notes, which do not fail the check: the records that keep no code
(once, for all of them), and a package of the stack installed beside knobs at another
release than a record names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from knobregistry._text.plural import counted
from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import example
from knobregistry.check.where import Where
from scanner import Language

if TYPE_CHECKING:
    from datetime import date
    from pathlib import Path

    from knobregistry.check.family_check import Context
    from knobregistry.project.fingerprints import UnitChange
    from knobregistry.registry import KnobEntry, Registry, TriageRecord
    from scanner import ScanResult

# The stale triage's example: a kernel triaged reproducible, kept on by a bitwise profile, and
# the code its record was measured on (the digests of scanner.gated).
_HC = (
    "import os\n\nimport triton\n\n\n@triton.jit\ndef _hc_fwd_kernel(x):\n    return x * 2\n"
    '\n\ndef hc_forward(x):\n    if os.environ.get("PRIMUS_HC_TRITON", "1") != "0":\n'
    "        return _hc_fwd_kernel[(1,)](x)\n    return x * 2\n"
)


_TRIAGED = """\
version: 1
scan:
  paths: [pkg]
knobs:
  PRIMUS_HC_TRITON:
    default: "1"
    default_on: true
    role: kernel
    triage: reproducible
    evidence:
      records:
        - date: 2026-05-01
          verdict: reproducible
          sweep: alone
          profile: bitwise
          command: [python, train.py]
          code:
            pkg/hc.py:
              _hc_fwd_kernel: 579a0f53e5fc2d83
              hc_forward: 4d30a7d1f7c88515
external:
  PYTHONHASHSEED:
    description: Python's hash seed.
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    env:
      PYTHONHASHSEED: "0"
"""


_STALE = {"registry.yaml": _TRIAGED, "pkg/hc.py": _HC}


# KNB009's section of docs/checks.md, below its heading (the site renders it there).
KNB009_SECTION = """\
A knob triaged `reproducible` whose gated code changed after its latest record:
its verdict was measured on other code. `knobs triage --record` keeps, in each
record, the code the knob gates (`code:`): a digest of each function its sites sit
in, of those that hold the branches its value decides, and of every function and
method those branches reach in the tree (the Triton `@jit` kernels among them),
which comments, formatting and docstrings do not change (see
[the code a verdict was measured on](triage.md#the-code-a-verdict-was-measured-on)).
The check holds the latest record's digests against the files: a function whose
digest differs, or that is gone, is named with its file and line, and the fix is
the `knobs triage` command that measures the knob again as the record did. An
**error** when a `bitwise` profile keeps the knob on on the strength of that
verdict, unless a waiver (`expires`, with its `owner`) holds; a **warning**
otherwise. A knob a profile's verified run (`knobs triage --search`) keeps on is
checked the same way. Like every finding, a baseline can accept it.

Two **notes**, which do not fail the check: the knobs triaged reproducible whose
latest record keeps no code (written before knobs kept it), once for all of them,
with the command that adds it (`knobs fingerprint --record`); and a package of the
stack (torch, triton, megatron-core, transformer-engine, ...) installed where knobs
runs at another release than the record names.

```python
# pkg/hc.py (PRIMUS_HC_TRITON triaged reproducible; its record keeps
#   code: {pkg/hc.py: {_hc_fwd_kernel: 579a0f53e5fc2d83, hc_forward: 4d30a7d1f7c88515}})
import os

import triton


@triton.jit
def _hc_fwd_kernel(x):
    return x * 3  # was x * 2


def hc_forward(x):
    if os.environ.get("PRIMUS_HC_TRITON", "1") != "0":
        return _hc_fwd_kernel[(1,)](x)
    return x * 2
```

    pkg/hc.py:7:1: KNB009 error: PRIMUS_HC_TRITON is triaged reproducible, but the code it gates changed after its latest record (2026-05-01): _hc_fwd_kernel (pkg/hc.py:7) changed. Profile 'bitwise' (kind bitwise) keeps it on on the strength of that verdict.
        Triage it again on the code as it is now; the new record keeps the code it was measured on:
          knobs triage --profile bitwise --knob PRIMUS_HC_TRITON --record -- python train.py

    Found 1 error: 1 knob in 1 file checked against registry.yaml (policy all).
"""  # noqa: E501

KNB009 = Rule(
    code="KNB009",
    name="StaleTriage",
    title="A knob triaged reproducible gates code that changed after its triage.",
    description=(
        "`knobs triage --record` keeps, in each record, the code the knob gates: a "
        "digest of each function its sites sit in, of those that hold the branches its "
        "value decides, and of every function and method those branches reach in the "
        "tree (the Triton kernels among them), which comments, formatting and docstrings "
        "do not change. A knob triaged `reproducible` (or kept on by a profile's verified "
        "run) whose latest record no longer matches the code was measured on other code: "
        "its verdict is stale. An error when a `bitwise` profile keeps the knob on (a "
        "waiver, `expires`, makes it a warning until then), else a warning. Reported at "
        "the first function that changed, naming each. Notes, which do not fail the "
        "check: records that keep no code (written before knobs kept it), once for all "
        "of them; and a package of the stack (torch, triton, megatron-core, ...) "
        "installed where knobs runs at another release than the record names."
    ),
    example=(
        "# registry.yaml: PRIMUS_HC_TRITON triaged reproducible, its record measured on\n"
        "#   pkg/hc.py: {_hc_fwd_kernel: 579a0f53e5fc2d83, hc_forward: 4d30a7d1f7c88515}\n"
        "@triton.jit\n"
        "def _hc_fwd_kernel(x):\n"
        "    return x * 3    # was x * 2"
    ),
    examples=example(
        _STALE,
        invalid={"pkg/hc.py": _HC.replace("return x * 2\n\n", "return x * 3\n\n")},
        valid={"pkg/hc.py": _HC.replace("    return x * 2\n", "    return x*2  # doubled\n")},
    ),
    page="checks.md",
    section=KNB009_SECTION,
    family=Family.TRIAGE,
    help=(
        "Triage the knob again on the code as it is now (the fix prints the command, from "
        "its latest record); the new record keeps the new code. If the change cannot "
        "affect the result, a waiver (`expires`, `owner`) lets it through until a date."
    ),
)


@dataclass(frozen=True, slots=True)
class _Triaged:
    """A knob whose verdict keeps it on somewhere, and its latest record."""

    entry: KnobEntry
    record: TriageRecord
    index: int  # the record's place in `evidence.records`


def stale_triage_diagnostics(
    registry: Registry,
    scan: ScanResult,
    *,
    cwd: Path,
    today: date,
    installed: Callable[[], Mapping[str, str]] | None = None,
) -> list[Diagnostic]:
    """KNB009 for each stale verdict of a knob the scan finds, and its notes; ``installed``:
    the stack's versions where knobs runs (read only when a record names versions; by
    default, the packages installed beside knobs)."""
    from knobregistry.project.fingerprints import changed_units, installed_stack, units_of

    where = Where(registry, cwd)
    # A knob no scanned code reads is KNB002's (or outside the paths a narrowed check scans).
    triaged = [t for t in _triaged(registry) if scan.knob(t.entry.name) is not None]
    recorded = [t for t in triaged if t.record.code]
    now = units_of(registry.root, (t.record.code for t in recorded))
    kept = _kept_on(registry)
    found: list[Diagnostic] = []
    for item in recorded:
        changes = changed_units(item.record.code, now)
        if changes:
            found.append(_stale(where, item, changes, kept.get(item.entry.name), today))
    missing = [t for t in triaged if not t.record.code and _has_python(scan, t.entry.name)]
    if missing:
        found.append(_no_code(where, missing))
    if any(t.record.versions for t in triaged):
        found.extend(_stack_notes(where, triaged, (installed or installed_stack)()))
    return found


def _triaged(registry: Registry) -> Iterator[_Triaged]:
    """The knobs triaged reproducible, or that a profile's verified run keeps on, with a
    latest record."""
    from knobregistry.project.fingerprints import latest_record
    from knobregistry.registry import Triage, Verdict

    verified = {
        name
        for profile in registry.profiles.values()
        if profile.verified is not None and profile.verified.verdict is Verdict.REPRODUCIBLE
        for name in profile.verified.combined_with
    }
    for name, entry in registry.knobs.items():
        if entry.triage is not Triage.REPRODUCIBLE and name not in verified:
            continue
        record = latest_record(entry)
        if record is not None:
            assert entry.evidence is not None
            yield _Triaged(entry, record, entry.evidence.records.index(record))


def _kept_on(registry: Registry) -> dict[str, str]:
    """Each knob a `bitwise` profile keeps on (its feature on), with the first such profile."""
    from knobregistry.profiles import Intent, resolve_profile
    from knobregistry.registry import ProfileKind
    from knobregistry.registry.feature import feature_on_by_default

    kept: dict[str, str] = {}
    for name, profile in registry.profiles.items():
        if profile.kind is not ProfileKind.BITWISE:
            continue
        resolved = resolve_profile(registry, name)
        for knob, entry in registry.knobs.items():
            intent = resolved.intent(knob) if knob in resolved.env else None
            on = (
                intent is Intent.ON
                if intent is not None
                else feature_on_by_default(entry.default_on, entry.polarity) is True
            )
            if on:
                kept.setdefault(knob, name)
    return kept


def _has_python(scan: ScanResult, name: str) -> bool:
    knob = scan.knob(name)
    return knob is not None and any(s.language is Language.PYTHON for s in knob.sites)


def _stale(
    where: Where, item: _Triaged, changes: list[UnitChange], profile: str | None, today: date
) -> Diagnostic:
    from knobregistry.project.fingerprints import names_listed, retriage_command
    from knobregistry.registry import Triage

    entry, record = item.entry, item.record
    name = entry.name
    listed = names_listed([c.shown(where.show(c.path)) for c in changes])
    verdict = "triaged reproducible" if entry.triage is Triage.REPRODUCIBLE else "kept on"
    message = (
        f"{name} is {verdict}, but the code it gates changed after its latest record "
        f"({record.date.isoformat()}): {listed}."
    )
    severity = Severity.WARNING
    if profile is None:
        message += " No bitwise profile keeps it on."
    else:
        message += (
            f" Profile '{profile}' (kind bitwise) keeps it on on the strength of that verdict."
        )
        if entry.expires is not None and today <= entry.expires:
            owner = f", owner {entry.owner}" if entry.owner else ""
            message += f" Its waiver holds until {entry.expires.isoformat()}{owner}."
        else:
            severity = Severity.ERROR
    fix = (
        "Triage it again on the code as it is now; the new record keeps the code it was "
        f"measured on:\n  {retriage_command([name], record, where.registry_file)}"
    )
    first = next((c for c in changes if c.line is not None), None)
    if first is not None and first.line is not None:
        found = KNB009.diagnostic(
            where.show(first.path), first.line, 1, message, fix=fix, knob=name
        )
    else:
        key = ("knobs", name, "evidence", "records", item.index, "code")
        found = where.diagnostic(KNB009, key, message, fix, name)
    return replace(found, severity=severity)


def _no_code(where: Where, missing: list[_Triaged]) -> Diagnostic:
    from knobregistry.project.fingerprints import names_listed, retriage_command

    names = [t.entry.name for t in missing]
    count = counted(len(names), "knob")
    message = (
        f"{count} triaged reproducible {'has' if len(names) == 1 else 'have'} no record of "
        f"the code {'it was' if len(names) == 1 else 'they were'} measured on "
        f"({names_listed(names)}): the records were written before knobs kept it, so a "
        "change to that code goes unnoticed."
    )
    fix = (
        "If the code has not changed since the triage, record it as it is now:\n"
        f"  knobs fingerprint --record {' '.join(names)}\n"
        "else triage them again with --record:\n"
        f"  {retriage_command(names, missing[0].record, where.registry_file)}"
    )
    key = ("knobs", names[0], "evidence", "records", missing[0].index)
    found = where.diagnostic(KNB009, key, message, fix, names[0])
    return replace(found, severity=Severity.NOTE, knob=None)


def _stack_notes(
    where: Where, triaged: list[_Triaged], installed: Mapping[str, str]
) -> Iterator[Diagnostic]:
    """One note per package and recorded version that differs from the one installed."""
    from knobregistry.project.fingerprints import names_listed, retriage_command, stack_changes

    groups: dict[tuple[str, str, str], list[_Triaged]] = {}
    for item in triaged:
        for change in stack_changes(item.record, installed):
            groups.setdefault((change.package, change.recorded, change.installed), []).append(item)
    for (package, recorded, now), items in sorted(groups.items()):
        names = [t.entry.name for t in items]
        message = (
            f"{package} is {now} where knobs runs, but {names_listed(names)} "
            f"{'was' if len(names) == 1 else 'were'} triaged on {package} {recorded}: "
            "the verdict may not hold on this stack."
        )
        fix = (
            "Triage again on this stack to confirm (or ignore this note if knobs runs on "
            "another stack than the training):\n"
            f"  {retriage_command(names, items[0].record, where.registry_file)}"
        )
        key = ("knobs", names[0], "evidence", "records", items[0].index, "versions")
        found = where.diagnostic(KNB009, key, message, fix, names[0])
        yield replace(found, severity=Severity.NOTE, knob=None)


def run(context: Context) -> list[Diagnostic]:
    """The triage's check: the code each verdict was measured on against the code now."""
    return stale_triage_diagnostics(
        context.registry, context.scan, cwd=context.cwd, today=context.today
    )
