"""A huge file analysed a group of statements at a time (``scanner.source.split``), so
that neither parser ever holds the whole file; components of one shape are analysed
once (``scanner.run.templates``).

The outcome is the whole file's: when anything could make it differ (an error,
the local rounds' limit, a budget for following stored reads that the groups
together could exceed), ``analyse_groups`` answers None and the caller analyses
the file whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from scanner.model import DynamicRead, FileResult, Site, Write
from scanner.run.templates import Key, key, template
from scanner.run.work import (
    MAX_LOCAL_ROUNDS,
    Computed,
    FileOutcome,
    FileTask,
    Options,
    analyse,
)
from scanner.source.narrow import CONSUMER_LINES, Source, text_lines
from scanner.source.shapes import Shape, shape
from scanner.source.split import Chunk, Plan, pack, plan
from scanner.syntax.index import CLASS, Wrapper, WrapperIndex

MIN_SHARED = 3  # components of one key worth analysing once (the model, its check, one more)


@dataclass(slots=True)
class _Found:
    """What the groups analysed so far found, together."""

    wrappers: list[Wrapper] = field(default_factory=list)
    facts: dict[tuple[str, str], Wrapper] = field(default_factory=dict)
    sites: list[Site] = field(default_factory=list)
    dynamic: list[DynamicRead] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    depends: set[tuple[str, str]] = field(default_factory=set)
    consumed: list[tuple[int, int]] = field(default_factory=list)
    fallbacks: int = 0

    def add(self, result: FileResult) -> None:
        self.sites += result.sites
        self.dynamic += result.dynamic
        self.writes += result.writes


@dataclass(frozen=True, slots=True)
class _Group:
    """One group's analysis: its findings and the stored-read budget it took."""

    computed: Computed
    consumed: tuple[tuple[int, int], ...]


def analyse_groups(
    task: FileTask,
    data: bytes,
    text: str,
    names: tuple[str, ...],
    wrappers: tuple[Wrapper, ...],
    options: Options,
) -> Computed | None:
    """The outcome of a huge file, analysed in groups; None when the file does not
    split, or when the outcome could differ from the whole file's."""
    lines = text_lines(text)
    found_plan = plan(lines)
    if found_plan is None:
        return None
    shapes = [_shape(found_plan, lines, members) for members in found_plan.components]
    keyed: dict[Key, list[int]] = {}
    settings = options.settings
    for at, found_shape in enumerate(shapes):
        shared = key(found_shape, settings, names) if found_shape is not None else None
        if shared is not None:
            keyed.setdefault(shared, []).append(at)
    families = [members for members in keyed.values() if len(members) >= MIN_SHARED]
    later = {at for members in families for at in members[2:]}

    found = _Found()

    def run(chunk: Chunk) -> _Group | None:
        return _run(task, data, chunk, names, wrappers, options, found)

    groups: dict[int, _Group] = {}  # by the first line of the group's own statements
    alone: dict[int, _Group] = {}
    for at in (at for members in families for at in members[:2]):
        # Each in a group of its own, to judge it as a model or as its check.
        (chunk,) = _chunks(lines, found_plan, [at])
        group = run(chunk)
        if group is None:
            return None
        alone[at] = groups[_start(chunk)] = group
    rest = [at for at in range(len(shapes)) if at not in later and at not in alone]
    for members in families:
        moved = _moved(members, shapes, alone)
        if moved is None:
            rest += members[2:]
            continue
        for result in moved:
            found.add(result)
            found.consumed += alone[members[0]].consumed
    for chunk in _chunks(lines, found_plan, sorted(rest)):
        group = run(chunk)
        if group is None:
            return None
        groups[_start(chunk)] = group
    for _, group in sorted(groups.items()):  # wrappers in file order, as the whole file's
        _take(found, group)
    return _outcome(task, data, wrappers, found)


def _start(chunk: Chunk) -> int:
    """The first line of a group's own statements (not a line of the context units)."""
    return next(n for n in chunk.lines if n not in chunk.context)


def _shape(found_plan: Plan, lines: Sequence[str], members: Sequence[int]) -> Shape | None:
    units = [found_plan.units[at] for at in members]
    return shape(lines, [(u.start, u.end) for u in units], [u.tokens for u in units])


def _chunks(lines: Sequence[str], found_plan: Plan, components: Sequence[int]) -> list[Chunk]:
    return pack(lines, found_plan, [found_plan.components[at] for at in components])


def _moved(
    members: Sequence[int], shapes: Sequence[Shape | None], groups: dict[int, _Group]
) -> list[FileResult] | None:
    """The model's results moved to each component after the first two; None when the
    model is no template, or its results moved to the second are not the second's."""
    model, check = groups[members[0]], groups[members[1]]
    if model.computed.outcome.wrappers or model.computed.rounds:
        return None  # it defines wrappers, which would have to be renamed too
    first, second = shapes[members[0]], shapes[members[1]]
    assert first is not None and second is not None
    found = template(model.computed.outcome.result, first)
    if found is None or found.moved(second) != check.computed.outcome.result:
        return None
    return [found.moved(shape) for shape in _shapes(shapes, members[2:])]


def _shapes(shapes: Sequence[Shape | None], members: Sequence[int]) -> Iterator[Shape]:
    for at in members:
        found = shapes[at]
        assert found is not None  # a key is made of a shape
        yield found


def _run(
    task: FileTask,
    data: bytes,
    chunk: Chunk,
    names: tuple[str, ...],
    wrappers: tuple[Wrapper, ...],
    options: Options,
    found: _Found,
) -> _Group | None:
    """One group's analysis; None when it could differ from the whole file's."""
    try:
        source = Source.parse(chunk.text)
        narrowed = source.narrow(names) if source is not None else None
    except RecursionError:
        return None
    if source is None or narrowed is None:
        return None
    computed = analyse(
        task, data, chunk.text, names, source, narrowed, wrappers, options, chunk.lines
    )
    outcome, final = computed.outcome, computed.narrowing
    if (
        outcome.error is not None
        or len(computed.rounds) >= MAX_LOCAL_ROUNDS
        or final is None
        or final.unfollowed
        or computed.index is None
        or any(line in chunk.context for line in _lines_of(outcome.result))
    ):
        return None
    found.facts.update(((w.qualname, w.kind), w) for w in computed.index.facts)
    return _Group(computed, final.consumed)


def _take(found: _Found, group: _Group) -> None:
    outcome = group.computed.outcome
    found.consumed += group.consumed
    found.wrappers += outcome.wrappers
    found.add(outcome.result)
    found.depends.update(outcome.depends)
    found.fallbacks += outcome.fallbacks


def _outcome(
    task: FileTask, data: bytes, wrappers: tuple[Wrapper, ...], found: _Found
) -> Computed | None:
    left = CONSUMER_LINES - sum(size for _, size in found.consumed)
    if any(held > 4 * left for held, _ in found.consumed):
        return None  # the whole file would not follow some stored read a group followed
    initial = WrapperIndex.of(wrappers)
    known = {(w.qualname, w.kind) for w in initial.facts}
    missing = [w for k, w in found.facts.items() if k not in known]
    settled = None
    if missing:
        settled = WrapperIndex.of([*initial.facts, *missing]).callable_from(data, task.rel)
    result = FileResult(
        tuple(sorted(found.sites, key=lambda s: s.line)),
        tuple(sorted(found.dynamic, key=lambda d: d.line)),
        tuple(sorted(found.writes, key=lambda w: w.line)),
    )
    ordered = sorted(found.wrappers, key=lambda w: w.kind == CLASS)
    return Computed(
        outcome=FileOutcome(
            rel=task.rel,
            wrappers=tuple(ordered),
            result=result,
            depends=tuple(sorted(found.depends)),
            fallbacks=found.fallbacks,
        ),
        settled=settled,
    )


def _lines_of(result: FileResult) -> Iterator[int]:
    yield from (s.line for s in result.sites)
    yield from (d.line for d in result.dynamic)
    yield from (w.line for w in result.writes)
