"""The unit of work: one file in, its wrappers and findings out.

``process`` is a pure function of the file's bytes, the options and the
wrappers the file can call, which is what lets it run in a worker process and
be cached by content. The analysis proper depends on less: the narrowed text
(see ``scanner.narrow``). So a file whose bytes changed is narrowed first, and
the outcome stored for that narrowed text, if any, is reused without loading
libcst.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scanner.accessors import ENV_WORDS, accessor_names
from scanner.languages import Language
from scanner.model import FileResult, ScanError
from scanner.run import codec
from scanner.run.cache import Cache, CacheError, entry_key
from scanner.settings import Settings
from scanner.source.constants import ConstantLoader, still
from scanner.source.files import SourceError, decode_source
from scanner.syntax.index import Wrapper, WrapperIndex

if TYPE_CHECKING:
    from scanner.source.narrow import Narrowed, Source

MAX_LOCAL_ROUNDS = 8
Round = tuple[tuple[str, ...], str]  # names a local round added, and the narrowing's digest


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """What a worker is handed: the scan's settings, and where to cache (None: nowhere)."""

    settings: Settings = field(default_factory=Settings)
    cache_dir: Path | None = None

    def key(self) -> str:
        """What the settings add to every file's cache key (derived from their fields)."""
        return self.settings.key()


@dataclass(frozen=True, slots=True, kw_only=True)
class FileTask:
    path: Path
    rel: str
    module: str
    index: WrapperIndex  # every wrapper known so far; the file uses those it names
    language: Language = Language.PYTHON  # see scanner.run.readers


@dataclass(frozen=True, slots=True, kw_only=True)
class FileOutcome:
    rel: str
    wrappers: tuple[Wrapper, ...] = ()  # defined in this file
    result: FileResult = field(default_factory=FileResult)
    error: ScanError | None = None
    cached: bool = False
    cache_problem: str | None = None
    depends: tuple[tuple[str, str], ...] = ()  # what it learnt from other files: (key, fact)
    fallbacks: int = 0  # analyses whose positions fell back to libcst's (anchors mismatched)
    notes: tuple[str, ...] = ()  # what was left out of the analysis, and where ("line N: ...")


def fingerprint(wrappers: tuple[Wrapper, ...]) -> str:
    """A stable hash of the wrappers a file's result depends on."""
    digest = hashlib.blake2b(digest_size=16)
    for wrapper in sorted(wrappers, key=lambda w: w.qualname):
        digest.update(repr(sorted(codec.encode_wrapper(wrapper).items())).encode())
    return digest.hexdigest()


def python_outcome(task: FileTask, options: Options, data: bytes) -> FileOutcome:
    """Find the wrappers a Python file defines and the sites, dynamic reads and writes it
    holds (its bytes are in an encoding that is read)."""
    wrappers = task.index.callable_from(data, task.rel)
    if options.cache_dir is None:
        return _compute(task, data, wrappers, options, None).outcome
    cache = Cache(options.cache_dir)
    depends = fingerprint(wrappers)
    key = _key(task, options, data, depends)
    found = _stored(cache, task.rel, key)
    if found is not None and fresh(task, found[0]):
        return found[0]
    computed = _compute(task, data, wrappers, options, (cache, depends))
    outcome = computed.outcome
    entry = encode_outcome(outcome)
    try:
        cache.put(key, entry)
        if computed.narrowed is not None:
            rounds = [[list(added), digest] for added, digest in computed.rounds]
            cache.put(
                _narrowed_key(task, options, computed.narrowed, depends),
                {
                    **entry,
                    "rounds": rounds,
                },
            )
        if computed.settled is not None:
            # The same outcome is what these bytes give with the wrappers the file's
            # own rounds settled on: the scan's next round, which knows them all,
            # finds it here instead of analysing the file again.
            settled = fingerprint(computed.settled)
            cache.put(_key(task, options, data, settled), entry)
            if computed.settled_narrowed is not None:
                narrowed_key = _narrowed_key(task, options, computed.settled_narrowed, settled)
                cache.put(narrowed_key, {**entry, "rounds": []})
    except CacheError as exc:
        return replace(outcome, cache_problem=str(exc))
    return outcome


def cached(task: FileTask, options: Options, data: bytes) -> FileOutcome | None:
    """The stored outcome for these bytes, options and wrappers, or None."""
    if options.cache_dir is None:
        return None
    found = _stored(
        Cache(options.cache_dir), task.rel, _key(task, options, data, _depends(task, data))
    )
    return found[0] if found is not None and fresh(task, found[0]) else None


def _depends(task: FileTask, data: bytes) -> str:
    """What a file's cached outcome depends on besides its bytes and the options: the
    wrappers a Python file can call; a shell script or YAML config, its language."""
    if task.language is not Language.PYTHON:
        return str(task.language)
    return fingerprint(task.index.callable_from(data, task.rel))


LauncherAnalysis = Callable[[FileTask, Settings, bytes, str], FileOutcome]


def launcher_outcome(
    analysis: LauncherAnalysis, task: FileTask, options: Options, data: bytes
) -> FileOutcome:
    """The outcome of a shell script, a YAML config, a Dockerfile or a CI workflow
    (no wrappers, no narrowing): ``analysis`` of its text, cached by its bytes."""
    found = cached(task, options, data)
    if found is not None:
        return found
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        message = f"Cannot decode byte 0x{data[exc.start]:02x} on line {line} as UTF-8."
        return FileOutcome(rel=task.rel, error=ScanError(task.rel, message))
    outcome = analysis(task, options.settings, data, text)
    if options.cache_dir is not None:
        try:
            Cache(options.cache_dir).put(
                _key(task, options, data, _depends(task, data)), encode_outcome(outcome)
            )
        except CacheError as exc:
            return replace(outcome, cache_problem=str(exc))
    return outcome


def fresh(task: FileTask, outcome: FileOutcome) -> bool:
    """Whether what an outcome learnt from other files (the constants it used, the
    packages that re-export its wrappers) still holds."""
    if not outcome.depends:
        return True
    root = ConstantLoader(task.path, task.module, task.rel).root
    return all(still(root / key.split("\0")[0], fact) for key, fact in outcome.depends)


def _stored(cache: Cache, rel: str, key: str) -> tuple[FileOutcome, dict[str, Any]] | None:
    """The outcome stored under ``key``, with the whole entry; None when absent or broken."""
    stored = cache.get(key)
    if not isinstance(stored, dict):
        return None
    try:
        return decode_outcome(rel, stored), stored
    except (KeyError, TypeError, ValueError):
        return None  # a damaged or forged entry: a miss, recomputed and overwritten


def _key(task: FileTask, options: Options, data: bytes, depends: str) -> str:
    """The cache key of ``data`` (a file's bytes, or its narrowed text's digest) for this
    file, these options and the wrappers fingerprinted as ``depends``."""
    return entry_key(data, task.rel, task.module, options.key(), depends)


def _narrowed_key(task: FileTask, options: Options, digest: str, depends: str) -> str:
    return _key(task, options, b"\0narrowed\0" + digest.encode(), depends)


@dataclass(frozen=True, slots=True, kw_only=True)
class Computed:
    """An outcome, and what the cache needs to store it under every key it answers."""

    outcome: FileOutcome
    narrowed: str | None = None  # the first narrowing's digest, when it is to be stored
    rounds: tuple[Round, ...] = ()  # the local rounds that widened that narrowing
    settled: tuple[Wrapper, ...] | None = None  # the wrappers the local rounds settled on
    settled_narrowed: str | None = None  # and the digest of the narrowing they give
    index: WrapperIndex | None = None  # the wrappers the analysis ended with
    narrowing: Narrowed | None = None  # and the narrowing it ended with


def _compute(
    task: FileTask,
    data: bytes,
    wrappers: tuple[Wrapper, ...],
    options: Options,
    cache: tuple[Cache, str] | None,
) -> Computed:
    """The outcome of a file not found under its bytes (``cache``: the cache and the
    fingerprint of ``wrappers``, None without a cache)."""
    from scanner.source.depth import deep_message, nesting_problem
    from scanner.source.narrow import Source  # ast only: libcst is loaded below, when needed

    try:
        text = decode_source(data)
    except SourceError as exc:
        return Computed(outcome=FileOutcome(rel=task.rel, error=ScanError(task.rel, str(exc))))
    names = (
        *ENV_WORDS,
        *accessor_names(text, options.settings.accessors),
        *(w.short_name for w in wrappers),
    )
    from scanner.source.split import in_groups  # the narrowing: not on a warm scan's path

    if options.settings.narrow and in_groups(data):
        from scanner.run.groups import analyse_groups

        grouped = analyse_groups(task, data, text, names, wrappers, options)
        if grouped is not None:
            return grouped
    try:
        source = Source.parse(text) if options.settings.narrow else None
        narrowed = source.narrow(names) if source is not None else None
    except RecursionError:  # code nested deep enough to exhaust ast's own recursion
        problem = nesting_problem(text) or deep_message(1)
        return Computed(outcome=FileOutcome(rel=task.rel, error=ScanError(task.rel, problem)))
    if source is not None and narrowed is not None and cache is not None:
        # An edit that leaves the narrowed text as it was (a change in code that reads
        # nothing, a comment) needs no parser: the result stored for that text holds.
        store, depends = cache
        key = _narrowed_key(task, options, narrowed.digest(), depends)
        stored = _stored_narrow(store, task, key, source, names)
        if stored is not None and fresh(task, stored):
            return Computed(outcome=stored)
    computed = analyse(task, data, text, names, source, narrowed, wrappers, options)
    if narrowed is None or cache is None:
        return computed
    return replace(computed, narrowed=narrowed.digest())


def _stored_narrow(
    cache: Cache, task: FileTask, key: str, source: Source, names: tuple[str, ...]
) -> FileOutcome | None:
    """The outcome stored for this narrowed text, if the file's local rounds would
    narrow it the same way again (each round widens the text by the names it found)."""
    found = _stored(cache, task.rel, key)
    if found is None:
        return None
    outcome, stored = found
    try:
        rounds = [
            (codec.decode_texts(added), codec.decode_text(digest))
            for added, digest in map(codec.decode_list, codec.decode_list(stored["rounds"]))
        ]
    except (KeyError, TypeError, ValueError):
        return None
    for added, narrowed in rounds:
        names = (*names, *added)
        if source.narrow(names).digest() != narrowed:
            return None
    return outcome


def analyse(
    task: FileTask,
    data: bytes,
    text: str,
    names: tuple[str, ...],
    source: Source | None,
    narrowed: Narrowed | None,
    wrappers: tuple[Wrapper, ...],
    options: Options,
    lines: tuple[int, ...] | None = None,
) -> Computed:
    """Parse with libcst and analyse; also the local rounds that widened the narrowing,
    and the wrappers the analysis settled on when those rounds added some and reached a
    fixed point (analysing with exactly those from the start gives the same outcome).
    ``lines``: ``text`` is a group of the file's statements, on these lines of it."""
    # The parser and the analysis are imported here, on the first real parse: a warm
    # scan never loads libcst.
    import libcst as cst

    from scanner.interpret.analyze import analyze
    from scanner.interpret.module import ParsedModule
    from scanner.interpret.wrappers import discover
    from scanner.source.depth import flatten, nesting_problem, too_deep
    from scanner.source.narrow import Source
    from scanner.syntax.messages import syntax_message

    problem = too_deep(narrowed.anchors.deepest) if narrowed else nesting_problem(text)
    if problem is not None:
        flat = flatten(text) if lines is None else None
        if flat is None:
            error = ScanError(task.rel, problem)
            return Computed(outcome=FileOutcome(rel=task.rel, error=error))
        # Whatever CPython parses is read: all but the statements nested too deep.
        source = Source.parse(flat.text) if narrowed is not None else None
        narrowed = source.narrow(names) if source is not None else None
        computed = analyse(task, data, flat.text, names, source, narrowed, wrappers, options)
        return replace(computed, outcome=replace(computed.outcome, notes=flat.notes))
    loader = ConstantLoader(task.path, task.module, task.rel)
    try:
        parsed = ParsedModule.parse(
            task.rel, task.module, text, narrowed, loader, options.settings.accessors, lines
        )
    except cst.ParserSyntaxError as exc:
        return Computed(
            outcome=FileOutcome(rel=task.rel, error=ScanError(task.rel, syntax_message(data, exc)))
        )
    initial = index = WrapperIndex.of(wrappers)
    found: list[Wrapper] = []
    rounds: list[Round] = []
    for _ in range(MAX_LOCAL_ROUNDS):
        # Wrappers of wrappers in the same file: rediscover until nothing new appears.
        found = discover(parsed, index)
        known = {(w.qualname, w.kind): w for w in index.facts}
        missing = [w for w in found if known.get((w.qualname, w.kind)) != w]
        if not missing:
            # Keyed as the scan's next round will look it up: by the wrappers the file
            # can call (its own that it only defines are rediscovered the same way).
            settled = index.callable_from(data, task.rel) if index is not initial else None
            break
        index = WrapperIndex.of([*index.facts, *missing])
        added = tuple(w.short_name for w in missing)
        names = (*names, *added)
        if source is not None and narrowed is not None:
            wider = source.narrow(names)
            rounds.append((added, wider.digest()))
            if wider.text != narrowed.text:
                problem = too_deep(wider.anchors.deepest)
                if problem is not None:
                    return Computed(
                        outcome=FileOutcome(rel=task.rel, error=ScanError(task.rel, problem))
                    )
                narrowed = wider
                parsed = ParsedModule.parse(
                    task.rel, task.module, text, narrowed, loader, options.settings.accessors, lines
                )
    else:
        settled = None  # no fixed point within the rounds allowed
    if narrowed is None:
        # What narrowing would not follow is not followed unnarrowed either: the results
        # are the same either way.
        whole = Source.parse(text)
        parsed.unfollowed = whole.narrow(names).unfollowed if whole is not None else frozenset()
    result = analyze(parsed, index, options.settings)
    depends = tuple(sorted(loader.read.items()))
    outcome = FileOutcome(
        rel=task.rel,
        wrappers=tuple(found),
        result=result,
        depends=depends,
        fallbacks=int(parsed.fell_back),
    )
    return Computed(
        outcome=outcome,
        rounds=tuple(rounds),
        settled=settled,
        settled_narrowed=narrowed.digest() if settled is not None and narrowed else None,
        index=index,
        narrowing=narrowed,
    )


def encode_outcome(outcome: FileOutcome) -> dict[str, Any]:
    return {
        "wrappers": [codec.encode_wrapper(w) for w in outcome.wrappers],
        "sites": [codec.encode_site(s) for s in outcome.result.sites],
        "dynamic": [codec.encode_dynamic(d) for d in outcome.result.dynamic],
        "writes": [codec.encode_write(w) for w in outcome.result.writes],
        "config_keys": [list(pair) for pair in outcome.result.config_keys],
        "error": outcome.error.message if outcome.error is not None else None,
        "template": outcome.error.template if outcome.error is not None else "",
        "depends": [list(pair) for pair in outcome.depends],
        "notes": list(outcome.notes),
    }


def decode_outcome(rel: str, data: dict[str, Any]) -> FileOutcome:
    """The outcome an entry holds; ValueError or TypeError when a field is not as stored."""
    error = codec.decode_optional(data["error"])
    return FileOutcome(
        rel=rel,
        wrappers=tuple(codec.decode_wrapper(w) for w in codec.decode_list(data["wrappers"])),
        result=FileResult(
            sites=tuple(codec.decode_site(s) for s in codec.decode_list(data["sites"])),
            dynamic=tuple(codec.decode_dynamic(d) for d in codec.decode_list(data["dynamic"])),
            writes=tuple(codec.decode_write(w) for w in codec.decode_list(data["writes"])),
            config_keys=tuple(
                (key, codec.decode_text(kind))
                for key, kind in codec.decode_pairs(data["config_keys"])
            ),
        ),
        error=(
            ScanError(rel, error, template=codec.decode_text(data["template"]))
            if error is not None
            else None
        ),
        cached=True,
        depends=tuple(
            (path, codec.decode_text(known)) for path, known in codec.decode_pairs(data["depends"])
        ),
        notes=codec.decode_texts(data["notes"]),
    )
