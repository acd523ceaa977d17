"""Plain data that passed validation, turned into the registry's frozen records."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from knobregistry.registry.document import Document
from knobregistry.registry.model import (
    ConfigKey,
    Evidence,
    ExternalKnob,
    Gates,
    KnobEntry,
    MeasuredCost,
    Pass,
    Policy,
    Profile,
    ProfileKind,
    Registry,
    ScanScope,
    SelectRule,
    SetAction,
    SiteRecord,
    Sweep,
    Triage,
    TriageRecord,
    Verdict,
)
from scanner import Language, Polarity, Role

_V = TypeVar("_V")


def build_registry(doc: Document, path: Path) -> Registry:
    """The Registry for a document that validated without problems."""
    data: dict[str, Any] = doc.data
    return Registry(
        path=path,
        root=path.parent,
        version=int(data["version"]),
        scan=_scan(data.get("scan") or {}),
        knobs=_frozen({n: _knob(n, e) for n, e in (data.get("knobs") or {}).items()}),
        external=_frozen({n: _external(n, e) for n, e in (data.get("external") or {}).items()}),
        config=_frozen({n: _config(n, e) for n, e in (data.get("config") or {}).items()}),
        profiles=_frozen({n: _profile(n, e) for n, e in (data.get("profiles") or {}).items()}),
        positions=MappingProxyType(dict(doc.positions)),
    )


def _frozen(items: dict[str, _V]) -> Mapping[str, _V]:
    return MappingProxyType(items)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value or ())


def _date(value: Any) -> date | None:
    return date.fromisoformat(value) if isinstance(value, str) else None


def _scan(entry: dict[str, Any]) -> ScanScope:
    return ScanScope(
        paths=_strings(entry.get("paths")) or (".",),
        include=_strings(entry.get("include")),
        exclude=_strings(entry.get("exclude")),
        match=_strings(entry.get("match")),
        policy=Policy(entry.get("policy", Policy.ALL.value)),
        launch_facts=_strings(entry.get("launch_facts")),
        accessors=_strings(entry.get("accessors")),
        env_blocks=_strings(entry.get("env_blocks")),
        languages=tuple(
            (str(pattern), Language(name))
            for pattern, name in (entry.get("languages") or {}).items()
        ),
    )


def _knob(name: str, entry: dict[str, Any]) -> KnobEntry:
    gates = entry.get("gates")
    evidence = entry.get("evidence")
    return KnobEntry(
        name=name,
        triage=Triage(entry["triage"]),
        gates=_gates(gates) if gates is not None else None,
        default=entry.get("default"),
        default_on=entry.get("default_on"),
        polarity=Polarity(entry["polarity"]) if "polarity" in entry else None,
        off_value=entry.get("off_value"),
        off_unset="off_value" in entry and entry["off_value"] is None,
        on_value=entry.get("on_value"),
        required=entry.get("required", False),
        role=_role(entry.get("role")),
        role_proposed=isinstance(entry.get("role"), dict),
        role_reason=entry["role"].get("reason") if isinstance(entry.get("role"), dict) else None,
        undecided=entry.get("undecided"),
        launched_on=entry.get("launched_on"),
        together=tuple((str(k), str(v)) for k, v in (entry.get("together") or {}).items()),
        sites=_sites(entry["sites"]) if "sites" in entry else None,
        breaks=Pass(entry["breaks"]) if "breaks" in entry else None,
        reason=entry.get("reason"),
        expires=_date(entry.get("expires")),
        owner=entry.get("owner"),
        cost=_cost_text(entry.get("cost")),
        notes=entry.get("notes"),
        evidence=_evidence(evidence) if evidence is not None else None,
        measured=_measured(entry.get("cost")),
    )


def _sites(records: list[dict[str, Any]]) -> tuple[SiteRecord, ...]:
    return tuple(
        SiteRecord(
            path=r["path"],
            function=r["function"],
            default=r["default"],
            default_on=r["default_on"],
            switch="off_value" in r,
            off_value=r.get("off_value"),
        )
        for r in records
    )


def _role(value: Any) -> Role | None:
    """`role: kernel`, or the role of `role: {proposed: kernel, reason: ...}`."""
    if isinstance(value, dict):
        value = value.get("proposed")
    return Role(value) if isinstance(value, str) else None


def _cost_text(cost: Any) -> str | None:
    """The prose of a knob's `cost`, plain or `{text: ...}`."""
    if isinstance(cost, dict):
        text = cost.get("text")
        return text if isinstance(text, str) else None
    return cost if isinstance(cost, str) else None


def _measured(cost: Any) -> MeasuredCost | None:
    found = cost.get("measured") if isinstance(cost, dict) else None
    if not isinstance(found, dict):
        return None
    return MeasuredCost(
        metric=found["metric"],
        off_over_on=float(found["off_over_on"]),
        spread=float(found["spread"]),
        runs=found["runs"],
        host=found.get("host"),
        date=_date(found.get("date")),
    )


def _gates(entry: dict[str, Any]) -> Gates:
    which = entry.get("pass")
    return Gates(kernel=entry["kernel"], pass_=Pass(which) if which is not None else None)


def _evidence(entry: dict[str, Any]) -> Evidence:
    return Evidence(
        hardware=entry.get("hardware"),
        setup=entry.get("setup"),
        date=_date(entry.get("date")),
        compare=entry.get("compare"),
        source=entry.get("source"),
        notes=entry.get("notes"),
        records=tuple(_record(r) for r in entry.get("records") or ()),
    )


def _record(entry: dict[str, Any]) -> TriageRecord:
    command = entry.get("command")
    sweep = entry.get("sweep")
    record_date = _date(entry["date"])
    assert record_date is not None
    return TriageRecord(
        date=record_date,
        verdict=Verdict(entry["verdict"]),
        command=tuple(command) if isinstance(command, list) else command,
        runs=entry.get("runs"),
        compare=entry.get("compare"),
        sweep=Sweep(sweep) if sweep is not None else None,
        combined_with=_strings(entry.get("combined_with")),
        profile=entry.get("profile"),
        host=entry.get("host"),
        gpu=entry.get("gpu"),
        gpus=entry.get("gpus"),
        hosts=_strings(entry.get("hosts")),
        versions=MappingProxyType(dict(entry.get("versions") or {})),
        versions_from=entry.get("versions_from"),
        difference=entry.get("difference"),
        diverges=entry.get("diverges"),
        notes=entry.get("notes"),
        trace=MappingProxyType(dict(entry.get("trace") or {})),
        code=MappingProxyType(
            {
                str(path): MappingProxyType({str(k): str(v) for k, v in units.items()})
                for path, units in (entry.get("code") or {}).items()
            }
        ),
    )


def _external(name: str, entry: dict[str, Any]) -> ExternalKnob:
    return ExternalKnob(
        name=name,
        description=entry["description"],
        library=entry.get("library"),
        default=entry.get("default"),
        set_by=entry.get("set_by"),
        cost=entry.get("cost"),
        notes=entry.get("notes"),
        implied_by=tuple(
            sorted((str(k), str(v)) for k, v in (entry.get("implied_by") or {}).items())
        ),
        role=Role(entry["role"]) if "role" in entry else None,
        deterministic=entry.get("deterministic"),
        must_stay_unset=entry.get("must_stay_unset") is True,
        source=entry.get("source"),
    )


def _config(name: str, entry: dict[str, Any]) -> ConfigKey:
    return ConfigKey(
        name=name,
        backend=entry["backend"],
        description=entry["description"],
        default=entry.get("default"),
        has_default="default" in entry,
        defined_in=entry.get("defined_in"),
        argument=entry.get("argument"),
        cost=entry.get("cost"),
        notes=entry.get("notes"),
        source=entry.get("source"),
    )


def _set_action(value: str | bool) -> SetAction:
    if isinstance(value, bool):  # YAML 1.1 reads a bare `off` / `on` as a boolean
        return SetAction.ON if value else SetAction.OFF
    return SetAction(value)


def _statuses(value: str | list[str] | None) -> tuple[Triage, ...]:
    if isinstance(value, str):
        return (Triage(value),)
    return tuple(Triage(t) for t in value or ())


def _rule(entry: dict[str, Any]) -> SelectRule:
    return SelectRule(
        set=_set_action(entry["set"]),
        match=_strings(entry.get("match")),
        default_on=entry.get("default_on"),
        triage=_statuses(entry.get("triage")),
        triage_not=_statuses(entry.get("triage_not")),
        role=_roles(entry.get("role")),
    )


def _roles(value: str | list[str] | None) -> tuple[Role, ...]:
    if isinstance(value, str):
        return (Role(value),)
    return tuple(Role(r) for r in value or ())


def _profile(name: str, entry: dict[str, Any]) -> Profile:
    return Profile(
        name=name,
        description=entry["description"],
        kind=ProfileKind(entry.get("kind", ProfileKind.CUSTOM.value)),
        extends=entry.get("extends"),
        env=MappingProxyType(dict(entry.get("env") or {})),
        config=MappingProxyType(dict(entry.get("config") or {})),
        select=tuple(_rule(r) for r in entry.get("select") or ()),
        verified=_record(entry["verified"]) if isinstance(entry.get("verified"), dict) else None,
    )
