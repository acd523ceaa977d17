"""Components of one shape, analysed once: the key they share, the check that the
analysis could not tell their names apart, and its results moved to each of them.

``scanner.source.shapes`` gives each component of a huge file a shape, the text
with its renamed tokens replaced. Components share a *key* when their shapes are
equal and each renamed token is alike to the analysis: a token whose text the
analysis looks at (a word it searches files for, an accessor's name, a name that
sounds boolean, a dunder) stands for itself, and for any other token the key
keeps what its text decides (whether it says "disable", whether launchers set it).
No component shares a key when the scan reports only some names (``--match``).

The first component of a key (the *model*) is analysed, and is a template only
if every renamed string is the name its read reports (not one a wrapper or an
unknown call gets), and no text the analysis wrote (a default, a reason, an
expression) holds a renamed token. The second is analysed too, and must equal
the model's results moved to it; only then do the others take the model's
results without an analysis.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass, replace

from scanner.accessors import accessor_kind
from scanner.conventions import is_launch_fact, says_disable
from scanner.interpret.gates import looks_boolean
from scanner.model import DynamicRead, FileResult, Gate, ReadKind, Site, Write
from scanner.settings import Settings
from scanner.source.shapes import Shape

Key = tuple[str, tuple[object, ...]]
_BY_WRAPPER = (ReadKind.WRAPPER, ReadKind.DESCRIPTOR)
_BUILTINS = frozenset(dir(builtins))  # a component may bind one after using the builtin


def key(shape: Shape, settings: Settings, words: Sequence[str]) -> Key | None:
    """What components of this shape must share to share their analysis; None when
    the scan reports only some names."""
    if settings.match:
        return None
    return shape.text, tuple(_alike(value, settings, words) for value in shape.values)


def _alike(value: str, settings: Settings, words: Sequence[str]) -> object:
    """What the analysis can see of a token's text: the text itself when it is
    looked at, else what the conventions decide with it."""
    lowered = value.lower()
    if (
        "env" in lowered
        or any(word in value for word in words)
        or accessor_kind(value, settings.accessors) is not None
        or looks_boolean(value)
        or value.startswith("__")
        or value in _BUILTINS
    ):
        return value
    return says_disable(value), is_launch_fact(value, settings.launch_facts)


@dataclass(frozen=True, slots=True)
class Template:
    """The analysis of a model component, to move to the components of its key."""

    result: FileResult
    model: Shape

    def moved(self, other: Shape) -> FileResult:
        """The results of the component ``other`` (of the model's key)."""
        mover = _Mover(self.model, other, check=False)
        return FileResult(
            sites=tuple(mover.site(s) for s in self.result.sites),
            dynamic=tuple(mover.dynamic(d) for d in self.result.dynamic),
            writes=tuple(mover.write(w) for w in self.result.writes),
        )


def template(result: FileResult, model: Shape) -> Template | None:
    """``result``, the analysis of the component ``model``, as a template; None when it
    could differ for another component of its key: a renamed string is not the name its
    read reports, or a text the analysis wrote holds a renamed token."""
    wrapped = {
        (s.line, s.column) for s in result.sites if s.via is not None or s.kind in _BY_WRAPPER
    }
    named: set[tuple[int, int, str | None]] = {(s.line, s.column, s.name) for s in result.sites}
    named.update((w.line, w.column, w.name) for w in result.writes if w.via is None)
    for at, column, number in model.reads:
        line = model.lines[at]
        if (line, column, model.values[number]) not in named or (line, column) in wrapped:
            return None
    mover = _Mover(model, model, check=True)
    try:
        for site in result.sites:
            mover.site(site)
        for read in result.dynamic:
            mover.dynamic(read)
        for write in result.writes:
            mover.write(write)
    except _Held:
        return None
    return Template(result, model)


class _Held(Exception):
    """A text the analysis wrote holds a renamed token."""


class _Mover:
    def __init__(self, model: Shape, other: Shape, *, check: bool) -> None:
        self.check = check
        self.values = model.values
        self.names = dict(zip(model.values, other.values, strict=True))
        self.lines = {line: at for at, line in enumerate(model.lines)}
        self.other_lines = other.lines
        self.occurrences: dict[int, list[tuple[int, int, int]]] = {}
        for at, start, end, number in model.occurrences:
            delta = len(other.values[number]) - len(model.values[number])
            self.occurrences.setdefault(at, []).append((start, end, delta))

    def site(self, site: Site) -> Site:
        self._check(site.default)
        self._gate(site.gate)
        line, column = self._position(site.line, site.column)
        return replace(
            site,
            name=self._name(site.name),
            line=line,
            column=column,
            function=self._qualname(site.function),
            via=self._via(site.via),
            target=None if site.target is None else self._name(site.target),
        )

    def dynamic(self, read: DynamicRead) -> DynamicRead:
        self._check(read.expression, read.reason)
        line, column = self._position(read.line, read.column)
        return replace(
            read,
            line=line,
            column=column,
            function=self._qualname(read.function),
            via=self._via(read.via),
        )

    def write(self, write: Write) -> Write:
        self._check(write.value, write.condition, *(t for pair in write.when for t in pair))
        line, column = self._position(write.line, write.column)
        return replace(
            write,
            name=None if write.name is None else self._name(write.name),
            line=line,
            column=column,
            function=self._qualname(write.function),
            via=self._via(write.via),
        )

    def _gate(self, gate: Gate) -> None:
        self._check(gate.off_value, gate.on_value, gate.reason, gate.condition)
        self._check(*gate.off_values, *gate.on_values, *gate.choices)

    def _position(self, line: int, column: int) -> tuple[int, int]:
        at = self.lines.get(line)
        if at is None:
            raise _Held  # not in the component: nothing to move it by
        start0 = column - 1
        moved = start0
        for start, end, delta in self.occurrences.get(at, ()):
            if end <= start0:
                moved += delta
            elif start < start0:
                raise _Held  # inside a renamed token
        return self.other_lines[at], moved + 1

    def _name(self, name: str) -> str:
        moved = self.names.get(name)
        if moved is None:
            self._check(name)
        return name if moved is None else moved

    def _qualname(self, qualname: str) -> str:
        return ".".join(self._name(part) for part in qualname.split("."))

    def _via(self, qualname: str | None) -> str | None:
        return None if qualname is None else self._qualname(qualname)

    def _check(self, *texts: str | None) -> None:
        """Raise _Held when a text holds a renamed token (when checking)."""
        if not self.check:
            return
        for text in texts:
            if text is not None and any(value in text for value in self.values):
                raise _Held
