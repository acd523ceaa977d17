"""The verdict half of the accuracy benchmark: the scanner's gate verdicts against expected ones.

``verdicts.yaml`` (Python reads) and ``launcher_verdicts.yaml`` (shell scripts
and YAML configs) hold a top-level ``sites:`` list; each entry names a package,
a site (``path``, ``line``, optional ``column``) and a knob, and the verdict a
reader worked out for it: ``default``, ``kind``, ``default_on``, ``off_values``
(optional ``off_except``) and ``polarity``; optionally the site's ``language``
and the knob's ``role``. Each site is judged ``right`` (every field matches),
``unknown`` (the scanner says it does not know) or ``wrong`` (anything else, a
missing site included). A ``role`` is judged against the scanned knob's role the
same three ways (``unknown`` while the scanner proposes none), at the entries whose
kind is a switch: a value's role is ``value`` and a launch fact's ``fact`` by
definition, which the verdict already grades.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import yaml
from accuracy_sources import BenchError, shown

from scanner import ScanResult, Site

PACKAGES = ("triton", "vllm", "transformers", "deepspeed", "megatron-core", "primus", "megatron-lm")
KINDS = ("boolean", "presence", "value", "launch")
SWITCHES = ("boolean", "presence")
LANGUAGES = ("python", "shell", "yaml")
ROLES = ("kernel", "determinism", "stack", "feature", "safety", "launch", "debug", "value", "fact")
VERDICTS = ("right", "unknown", "wrong")
REQUIRED = ("package", "path", "line", "name", "kind", "polarity")


@dataclass(frozen=True)
class Expected:
    """One entry of ``verdicts.yaml``."""

    package: str
    path: str
    line: int
    column: int | None
    name: str
    default: str | None
    kind: str
    default_on: bool | None
    off_values: tuple[str, ...]
    off_except: tuple[str, ...] | None
    polarity: str
    reason: str
    language: str | None = None  # the site's layer, when the entry says it
    role: str | None = None  # what the knob controls; None: the entry says none applies

    @property
    def where(self) -> str:
        column = f":{self.column}" if self.column is not None else ""
        return f"{self.path}:{self.line}{column} {self.name}"


@dataclass(frozen=True)
class Judged:
    """An entry's verdict, and what differs when it is wrong."""

    expected: Expected
    verdict: str
    detail: str


def load(path: Path, require: tuple[str, ...] = ()) -> list[Expected]:
    """The entries of ``path``; every malformed entry is reported at once.

    ``require`` names optional fields that every entry of this file must give.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise BenchError(f"cannot read {shown(path)}: {error}") from error
    sites = data.get("sites") if isinstance(data, dict) else None
    if not isinstance(sites, list):
        raise BenchError(f"{shown(path)}: expected a top-level 'sites:' list")
    entries: list[Expected] = []
    problems: list[str] = []
    for index, entry in enumerate(sites):
        try:
            entries.append(_entry(entry, require))
        except (TypeError, ValueError) as error:
            problems.append(f"  sites[{index}]: {error}")
    if problems:
        raise BenchError(f"{shown(path)} is not valid:\n" + "\n".join(problems))
    return entries


def _entry(raw: object, require: tuple[str, ...] = ()) -> Expected:
    if not isinstance(raw, dict):
        raise TypeError("each entry is a mapping")
    missing = [key for key in REQUIRED if key not in raw]
    missing += [key for key in require if key not in raw or (raw[key] is None and key != "role")]
    if missing:
        raise ValueError(f"missing {', '.join(missing)} ({raw.get('name')})")
    default = raw.get("default")
    if isinstance(default, int) and not isinstance(default, bool):
        default = str(default)  # an unquoted number in the YAML
    checks = {
        "package": raw["package"] in PACKAGES,
        "kind": raw["kind"] in KINDS,
        "polarity": raw["polarity"] in ("enable", "disable"),
        "default": default is None or isinstance(default, str),
        "default_on": raw.get("default_on") in (True, False, None),
        "line": isinstance(raw["line"], int),
        "language": raw.get("language") in (None, *LANGUAGES),
        "role": raw.get("role") in (None, *ROLES),
    }
    bad = [key for key, ok in checks.items() if not ok]
    if bad:
        raise ValueError(f"{', '.join(bad)}: not a valid value ({raw.get('name')})")
    off_except = raw.get("off_except")
    return Expected(
        package=raw["package"],
        path=str(raw["path"]),
        line=raw["line"],
        column=raw.get("column"),
        name=str(raw["name"]),
        default=default if isinstance(default, str) else None,
        kind=raw["kind"],
        default_on=raw.get("default_on"),
        off_values=tuple(str(v) for v in raw.get("off_values") or ()),
        off_except=None if off_except is None else tuple(str(v) for v in off_except),
        polarity=raw["polarity"],
        reason=str(raw.get("reason", "")),
        language=raw.get("language"),
        role=raw.get("role"),
    )


def _text(value: object) -> object:
    return value.value if isinstance(value, Enum) else value


def _differences(expected: Expected, site: Site) -> list[str]:
    """Each field where the site's verdict is not the expected one."""
    found = (site.default, _text(site.gate.kind), site.default_on)
    wanted = (expected.default, expected.kind, expected.default_on)
    keys = ("default", "kind", "default_on")
    differences = [
        f"{key} expected {want!r}, found {got!r}"
        for key, want, got in zip(keys, wanted, found, strict=True)
        if want != got
    ]
    off = site.gate.off_value
    if expected.off_except is not None:
        off_ok = off is not None and off not in expected.off_except
        want = f"any but {list(expected.off_except)}"
    elif expected.off_values:
        off_ok, want = off in expected.off_values, f"one of {list(expected.off_values)}"
    else:
        off_ok, want = off is None, "None"
    if not off_ok:
        differences.append(f"off_value expected {want}, found {off!r}")
    polarity = _text(getattr(site, "polarity", None))
    if polarity != expected.polarity:
        differences.append(f"polarity expected {expected.polarity!r}, found {polarity!r}")
    if expected.language is not None and site.language != expected.language:
        language = site.language.value
        differences.append(f"language expected {expected.language!r}, found {language!r}")
    return differences


def judge(expected: Expected, result: ScanResult) -> Judged:
    """The best verdict any scanner site of the entry's name at its position earns."""
    knob = result.knob(expected.name)
    sites = [
        site
        for site in (knob.sites if knob is not None else ())
        if site.path == expected.path
        and site.line == expected.line
        and expected.column in (None, site.column)
    ]
    if not sites:
        elsewhere = ", ".join(f"{s.path}:{s.line}" for s in (knob.sites if knob else ())[:3])
        found = f"its sites: {elsewhere}" if elsewhere else "the scan has no knob of that name"
        return Judged(expected, "wrong", f"missing ({found})")
    judged: list[Judged] = []
    for site in sites:
        differences = _differences(expected, site)
        unknown = _text(site.gate.kind) == "unknown"
        if not differences:
            judged.append(Judged(expected, "right", ""))
        elif unknown:
            judged.append(Judged(expected, "unknown", str(getattr(site, "reason", "") or "")))
        else:
            judged.append(Judged(expected, "wrong", "; ".join(differences)))
    return min(judged, key=lambda j: VERDICTS.index(j.verdict))


def judge_role(expected: Expected, result: ScanResult) -> Judged:
    """The entry's ``role`` against the role the scan proposes for its knob.

    A role is the knob's, not the site's: it is judged wherever the knob's sites
    are. ``unknown`` when the scanner proposes none (its reason says why).
    """
    knob = result.knob(expected.name)
    if knob is None:
        return Judged(expected, "wrong", "the scan has no knob of that name")
    role = _text(knob.role)
    reason = knob.role_reason or ""
    if role == "unknown":
        return Judged(expected, "unknown", reason)
    if role == expected.role:
        return Judged(expected, "right", "")
    found = f"role expected {expected.role!r}, found {role!r}"
    return Judged(expected, "wrong", f"{found} ({reason})" if reason else found)


def _row(name: str, verdicts: list[Judged]) -> str:
    counts = [sum(1 for j in verdicts if j.verdict == v) for v in VERDICTS]
    return f"  {name:<16}{counts[0]:>6}{counts[1]:>9}{counts[2]:>7}"


def _header(name: str) -> str:
    return f"  {name:<16}{'right':>6}{'unknown':>9}{'wrong':>7}"


def report(
    path: Path,
    results: Mapping[str, ScanResult],
    skipped: Mapping[str, str],
    title: str = "verdicts",
    require: tuple[str, ...] = (),
) -> list[str]:
    """A verdict section: per package its counts, then every site not judged right.

    ``results`` holds the scans by package; ``skipped`` says, for a package
    that was not scanned, why its entries are not evaluated. When the entries
    carry a ``role``, a second table counts the roles judged per package, and
    every wrong role follows the wrong sites with the scanner's reason for it.
    """
    if not path.is_file():
        return [f"{title}: {shown(path)} not found"]
    entries = load(path, require)
    lines = [f"{title}: {shown(path)}, {len(entries)} sites", _header("package")]
    judged: list[Judged] = []
    roles: dict[str, list[Judged]] = {}
    for package in PACKAGES:
        mine = [e for e in entries if e.package == package]
        if not mine:
            continue
        if package not in results:
            why = skipped.get(package, "not scanned in this run")
            lines.append(f"  {package}: {len(mine)} sites skipped ({why})")
            continue
        verdicts = [judge(entry, results[package]) for entry in mine]
        judged.extend(verdicts)
        lines.append(_row(package, verdicts))
        with_role = [e for e in mine if e.role is not None and e.kind in SWITCHES]
        if with_role:
            roles[package] = [judge_role(entry, results[package]) for entry in with_role]
    if roles:
        lines.append(_header("role"))
        lines.extend(_row(package, verdicts) for package, verdicts in roles.items())
    for j in judged:
        if j.verdict != "right":
            lines.append(f"  {j.verdict}: {j.expected.package} {j.expected.where}: {j.detail}")
    for verdicts in roles.values():
        for j in verdicts:
            if j.verdict == "wrong":
                lines.append(f"  role wrong: {j.expected.package} {j.expected.where}: {j.detail}")
    return lines
