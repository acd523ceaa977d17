"""`--record`: write each verdict into the registry, as a triage status and evidence records.

Per knob: the `alone` verdict, the pairs it was part of (one record for the
partners it stayed reproducible with, one per partner it broke with) and its part
in a bisection. A record replaces an earlier one of the same experiment (sweep,
partners, profile, command, compare mode, host and GPU), so repeating a triage
changes nothing but the dates. The file is edited in place: comments, key order
and formatting are kept (see yaml_edit.py), and it is written atomically.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from knobregistry.registry import Sweep, Triage, Verdict
from knobregistry.triage.compare import CompareMode
from knobregistry.triage.cost import knob_costs
from knobregistry.triage.host import Host
from knobregistry.triage.model import Outcome, Search, TriageResult
from knobregistry.triage.trace_evidence import TraceEvidence
from knobregistry.triage.yaml_edit import KnobUpdate, ProfileUpdate, RecordEdit, edit_registry

Code = Mapping[str, Mapping[str, str]]  # a record's `code:`: by file, each unit's digest


@dataclass(frozen=True, slots=True)
class Recorded:
    """What --record changed, knob by knob."""

    path: str  # the registry, as shown to the user
    changes: tuple[RecordEdit, ...]
    profile: str | None = None  # the profile a search wrote


def knob_updates(
    result: TriageResult,
    host: Host,
    today: date,
    trace: TraceEvidence | None = None,
    code: Mapping[str, Code] | None = None,
) -> list[KnobUpdate]:
    """The updates a triage result makes, in candidate order (nothing after a failed
    baseline); ``trace`` is cited in every record, and each knob's record keeps the code
    it gates (``code``, by knob: see knobregistry.project.fingerprints)."""
    if result.stopped:
        return []
    build = _Builder(result, host, today, trace, code or {})
    for outcome in result.alone:
        build.add(outcome.setting.knobs[0], outcome, ())
    if result.pairs is not None:
        for name in result.candidates:
            build.pairs(name, [o for o in result.pairs if name in o.setting.knobs])
    bisection = result.bisection
    if bisection is not None:  # what it took from the pair sweep, that sweep recorded
        start = bisection.start
        if start is not None and start.verdict is Verdict.REPRODUCIBLE and _ran(start):
            for name in bisection.knobs:
                build.add(name, start, tuple(k for k in bisection.knobs if k != name))
        culprit = bisection.culprit
        if culprit is not None and _ran(culprit):
            for name in bisection.minimal:
                build.add(name, culprit, tuple(k for k in bisection.minimal if k != name))
    if result.search is not None:
        _search_records(build, result, result.search)
    measured = _measured(result, host, today)
    return [
        KnobUpdate(
            name=name,
            triage=build.status(name),
            records=tuple(build.records[name]),
            measured=measured.get(name),
        )
        for name in result.candidates
        if build.records[name] or name in measured
    ]


def _ran(outcome: Outcome) -> bool:
    """Whether the bisection ran ``outcome`` itself (else an earlier sweep judged it)."""
    return outcome.setting.sweep is Sweep.BISECT


def _search_records(build: _Builder, result: TriageResult, search: Search) -> None:
    """Each set of knobs the search found to break together, and the combination it kept."""
    by_knobs = {frozenset(o.setting.knobs): o for o in result.outcomes}
    for step in search.steps:
        culprit = by_knobs.get(frozenset(step.culprit)) if len(step.culprit) > 1 else None
        if culprit is not None:
            for name in step.culprit:
                build.add(name, culprit, tuple(k for k in step.culprit if k != name))
    kept = search.verification
    if kept is not None and len(search.verified) > 1:
        for name in search.verified:
            build.add(name, kept, tuple(k for k in search.verified if k != name))


def profile_update(
    result: TriageResult, host: Host, today: date, name: str
) -> ProfileUpdate | None:
    """The profile that turns the combination the search verified back on; None when the
    search kept nothing."""
    search = result.search
    if search is None or search.verification is None or result.stopped:
        return None
    base = result.profile
    verified = {
        "date": today,
        "verdict": search.verification.verdict.value,
        "sweep": "search",
        "combined_with": list(search.verified),
        "profile": base,
        "command": list(result.command),
        "runs": result.runs,
        "compare": result.compare,
        "host": host.name,
        "gpu": host.gpu,
        "versions": dict(host.versions),
    }
    return ProfileUpdate(
        name=name,
        description=f"{base or 'Every candidate off'}, with the knobs verified reproducible "
        "together turned back on (knobs triage --search fastest-bitwise).",
        extends=base,
        on=search.verified,
        off=()
        if base is not None
        else tuple(k for k in result.candidates if k not in search.verified),
        verified={k: v for k, v in verified.items() if v not in (None, [], {})},
    )


def _measured(result: TriageResult, host: Host, today: date) -> dict[str, dict[str, Any]]:
    """`cost.measured` of each knob --cost measured."""
    return {
        name: {
            "metric": str(result.cost),
            "off_over_on": round(cost.off_over_on, 4),
            "spread": round(cost.spread, 4),
            "runs": cost.runs,
            "host": host.name,
            "date": today,
        }
        for name, cost in knob_costs(result).items()
        if cost is not None
    }


def record_triage(
    path: Path,
    result: TriageResult,
    host: Host,
    today: date,
    *,
    shown: str | None = None,
    trace: TraceEvidence | None = None,
    search_profile: str = "bitwise-fast",
    code: Mapping[str, Code] | None = None,
) -> Recorded:
    """Write ``result`` into the registry at ``path``; raises RecordError when it cannot.

    ``shown`` is the path as messages show it (default: ``path``); ``trace``, a trace
    of a run, is cited in every record; a search's verified combination is written as
    the profile ``search_profile``; ``code``: the code each knob gates, kept in its
    records.
    """
    display = shown if shown is not None else path.as_posix()
    updates = knob_updates(result, host, today, trace, code)
    profile = profile_update(result, host, today, search_profile)
    edits = edit_registry(path, updates, display, profile)
    return Recorded(display, tuple(edits), profile.name if profile is not None else None)


class _Builder:
    def __init__(
        self,
        result: TriageResult,
        host: Host,
        today: date,
        trace: TraceEvidence | None,
        code: Mapping[str, Code],
    ) -> None:
        self.result, self.host, self.today, self.trace = result, host, today, trace
        self.code = code
        self.records: dict[str, list[dict[str, Any]]] = {n: [] for n in result.candidates}
        self.breaks: set[str] = set()
        self.clean = {o.setting.knobs[0] for o in result.alone if o.verdict is Verdict.REPRODUCIBLE}

    def status(self, name: str) -> Triage | None:
        if name in self.breaks:
            return Triage.BREAKS_BITWISE
        return Triage.REPRODUCIBLE if name in self.clean else None

    def add(self, name: str, outcome: Outcome, partners: tuple[str, ...]) -> None:
        if outcome.verdict is Verdict.BREAKS_BITWISE:
            self.breaks.add(name)
        self.records[name].append(self.record(name, outcome, partners))

    def pairs(self, name: str, outcomes: list[Outcome]) -> None:
        by_verdict: dict[Verdict, list[Outcome]] = {v: [] for v in Verdict}
        for outcome in outcomes:
            by_verdict[outcome.verdict].append(outcome)
        clean = by_verdict[Verdict.REPRODUCIBLE]
        if clean:
            self.add(name, clean[0], tuple(_partner(o, name) for o in clean))
        for outcome in by_verdict[Verdict.BREAKS_BITWISE]:
            self.add(name, outcome, (_partner(outcome, name),))
        failed = by_verdict[Verdict.ERROR]
        if failed:
            self.add(name, failed[0], tuple(_partner(o, name) for o in failed))

    def record(self, name: str, outcome: Outcome, partners: tuple[str, ...]) -> dict[str, Any]:
        result, host = self.result, self.host
        fields: dict[str, Any] = {
            "date": self.today,
            "verdict": outcome.verdict.value,
            "sweep": outcome.setting.sweep.value,
            "combined_with": list(partners),
            "profile": result.profile,
            "command": list(result.command),
            "runs": result.runs,
            "compare": result.compare,
            "host": host.name,
            "gpu": host.gpu,
            "gpus": host.gpus,
            "hosts": list(host.hosts),
            "versions": dict(host.versions),
            "versions_from": host.source,
            "difference": None,
            "diverges": None,
            "notes": None,
            "trace": self.trace.for_knob(name) if self.trace is not None else None,
            "code": {path: dict(units) for path, units in self.code.get(name, {}).items()},
        }
        if outcome.verdict is Verdict.BREAKS_BITWISE:
            fields["difference"] = outcome.detail
            mode = CompareMode(result.compare.partition(":")[0])  # its name is all it needs
            fields.update(mode.declared.records(outcome.detail or ""))
        elif outcome.verdict is Verdict.ERROR and outcome.detail:
            fields["notes"] = outcome.detail.splitlines()[0]
        return {k: v for k, v in fields.items() if v not in (None, [], {})}


def _partner(outcome: Outcome, name: str) -> str:
    return next(k for k in outcome.setting.knobs if k != name)
