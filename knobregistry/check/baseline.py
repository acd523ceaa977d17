"""A shrink-only baseline: findings accepted once, hidden from `knobs check` until they are fixed.

Findings are matched without line numbers, on (code, knob, path), with a count per
key, so moving code does not bring an old finding back. Paths in the file are
relative to the file's folder. When the check reports more findings for a key than
the baseline allows, every finding of that key is reported (nothing says which is
new); when it reports fewer, KNB203 asks for the baseline to shrink.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from knobregistry._io.atomic import write_atomic
from knobregistry._io.files import FileError, not_regular, read_text
from knobregistry._io.jsontext import loads
from knobregistry._text.paths import shown
from knobregistry._text.plural import counted
from knobregistry.check.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from knobregistry.check.run import CheckResult

VERSION = 1
# Never baselined: an expired waiver (its date is the agreement) and the baseline's own finding
# (KNB203, reported when a baseline is applied: knobregistry.check.rules.baseline_entry_gone).
UNBASELINABLE = frozenset({"KNB201", "KNB203"})


class BaselineError(Exception):
    """A baseline file that cannot be read, or may not be written; the CLI exits 2."""


@dataclass(frozen=True, slots=True, order=True)
class BaselineKey:
    """What a finding is matched on: its code, its knob ("" when none) and its path."""

    code: str
    knob: str
    path: str  # POSIX, relative to the baseline file's folder


@dataclass(frozen=True, slots=True)
class Baseline:
    """How many findings of each key are accepted, and where each entry sits in the file."""

    counts: Mapping[BaselineKey, int] = field(default_factory=dict)
    lines: Mapping[BaselineKey, tuple[int, int]] = field(default_factory=dict, compare=False)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def finding_key(diagnostic: Diagnostic, *, cwd: Path, folder: Path) -> BaselineKey:
    """The key of ``diagnostic`` (its path relative to ``cwd``) for a baseline in ``folder``."""
    return BaselineKey(diagnostic.code, diagnostic.knob or "", shown(cwd / diagnostic.path, folder))


def baselinable(diagnostic: Diagnostic) -> bool:
    """Errors and warnings, except an expired waiver and the baseline's own finding."""
    return diagnostic.severity is not Severity.NOTE and diagnostic.code not in UNBASELINABLE


def baseline_of(diagnostics: Iterable[Diagnostic], *, cwd: Path, folder: Path) -> Baseline:
    """The baseline that accepts exactly ``diagnostics``."""
    counts = Counter(finding_key(d, cwd=cwd, folder=folder) for d in diagnostics if baselinable(d))
    return Baseline(MappingProxyType(dict(sorted(counts.items()))))


def render_baseline(baseline: Baseline, name: str) -> str:
    """The file: one finding per line, sorted, byte-identical between runs."""
    about = (
        "Findings of `knobs check` accepted when this file was written; `knobs check "
        f"--baseline {name}` hides them. It only shrinks: after fixing findings, rewrite it "
        f"with `knobs check --baseline {name} --write-baseline {name}`."
    )
    entries = [
        json.dumps(
            {"code": k.code, "knob": k.knob or None, "path": k.path, "count": n},
            ensure_ascii=False,
        )
        for k, n in sorted(baseline.counts.items())
    ]
    head = ["{", f'  "version": {VERSION},', f'  "about": {json.dumps(about)},']
    if not entries:
        return "\n".join([*head, '  "findings": []', "}"]) + "\n"
    body = ",\n".join(f"    {entry}" for entry in entries)
    return "\n".join([*head, '  "findings": [', body, "  ]", "}"]) + "\n"


def load_baseline(path: Path, display: str) -> Baseline:
    """Read a baseline file; raises BaselineError naming ``display`` and what is wrong."""
    try:
        text = read_text(path)
        data: Any = loads(text)
    except FileError as exc:
        raise BaselineError(f"{display}: cannot read the baseline: {exc.reason}.") from exc
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{display}:{exc.lineno}:{exc.colno}: the baseline is not valid JSON: {exc.msg}."
        ) from exc
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise BaselineError(f'{display}: not a knobs baseline (it needs "version": {VERSION}).')
    findings = data.get("findings")
    if not isinstance(findings, list):
        raise BaselineError(f'{display}: "findings" must be a list.')
    counts: dict[BaselineKey, int] = {}
    for index, item in enumerate(findings):
        key, count = _entry(item, f"{display}: findings[{index}]")
        if key in counts:
            raise BaselineError(f"{display}: findings[{index}] repeats an earlier entry.")
        counts[key] = count
    return Baseline(MappingProxyType(counts), MappingProxyType(_lines(text)))


def _entry(item: Any, where: str) -> tuple[BaselineKey, int]:
    if not isinstance(item, dict):
        raise BaselineError(f"{where} must be an object.")
    code, knob, path, count = (item.get(k) for k in ("code", "knob", "path", "count"))
    if not isinstance(code, str) or not code:
        raise BaselineError(f'{where}: "code" must be a code such as "KNB001".')
    if knob is not None and not isinstance(knob, str):
        raise BaselineError(f'{where}: "knob" must be a name or null.')
    if not isinstance(path, str) or not path:
        raise BaselineError(f'{where}: "path" must be a path.')
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise BaselineError(f'{where}: "count" must be a whole number, 1 or more.')
    return BaselineKey(code, knob or "", path), count


def _lines(text: str) -> dict[BaselineKey, tuple[int, int]]:
    """The line and column of each entry written one per line (as render_baseline does)."""
    found: dict[BaselineKey, tuple[int, int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip().rstrip(",")
        if not stripped.startswith("{") or '"code"' not in stripped:
            continue
        try:
            key, _ = _entry(loads(stripped), "")
        except (json.JSONDecodeError, BaselineError):
            continue
        found.setdefault(key, (number, len(line) - len(line.lstrip()) + 1))
    return found


def growth(old: Baseline, new: Baseline) -> tuple[tuple[BaselineKey, int, int], ...]:
    """The keys ``new`` accepts more of than ``old``: (key, count in old, count in new)."""
    return tuple(
        (key, old.counts.get(key, 0), count)
        for key, count in sorted(new.counts.items())
        if count > old.counts.get(key, 0)
    )


def describe(key: BaselineKey, folder: Path, cwd: Path) -> str:
    """`KNB001 PRIMUS_X in pkg/model.py`, the path relative to ``cwd``."""
    where = shown(folder / key.path, cwd)
    return f"{key.code} {key.knob} in {where}" if key.knob else f"{key.code} in {where}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Written:
    """What `--write-baseline` did: the findings now accepted, before, and whether it wrote."""

    path: str  # relative to the current folder
    total: int
    previous: int | None  # None: there was no baseline
    changed: bool

    def render(self) -> str:
        count = counted(self.total, "finding")
        if not self.changed:
            return f"{self.path} is up to date: {count} accepted."
        was = f" (was {self.previous})" if self.previous is not None else ""
        return f"Wrote {self.path}: {count} accepted{was}."


def write_baseline(result: CheckResult, path: Path, *, cwd: Path, force: bool = False) -> Written:
    """Write the baseline that accepts ``result``'s findings; it may only shrink unless ``force``.

    Raises BaselineError when the existing file cannot be read or would grow (without ``force``).
    """
    display = shown(path, cwd)
    folder = path.absolute().parent
    new = baseline_of(result.diagnostics, cwd=cwd, folder=folder)
    old: Baseline | None = None
    if path.exists() and not path.is_file():
        mode = path.stat().st_mode
        raise BaselineError(f"cannot write {display}: {not_regular(mode)}.")  # --force or not
    if path.exists():
        try:
            old = load_baseline(path, display)
        except BaselineError as exc:
            if not force:
                raise BaselineError(f"{exc} Pass --force to replace it.") from exc
    grown = growth(old, new) if old is not None else ()
    if grown and not force:
        added = sum(now - before for _, before, now in grown)
        lines = [f"{display} would grow by {counted(added, 'finding')}:"]
        lines += [
            f"  {describe(key, folder, cwd)} ({now} now, {before} in the baseline)"
            for key, before, now in grown
        ]
        lines.append("A baseline only shrinks: fix these findings, or pass --force to accept them.")
        raise BaselineError("\n".join(lines))
    text = render_baseline(new, path.name)
    changed = _current(path) != text
    if changed:
        try:
            write_atomic(path, text)
        except FileError as exc:
            raise BaselineError(exc.message("write", display)) from exc
    return Written(
        path=display,
        total=new.total,
        previous=old.total if old is not None else None,
        changed=changed,
    )


def _current(path: Path) -> str | None:
    try:
        return read_text(path)
    except FileError:
        return None
