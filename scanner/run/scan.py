"""The scan: walk the tree, analyse files to a fixed point of wrappers, gather knobs.

Files whose bytes cannot hold a read are never parsed. Each file that can is
analysed once with the wrappers known so far; when the analysis of the tree
finds new wrappers, only the files that mention their names are analysed again.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from scanner.interpret.knobs import build_knobs, link_writes
from scanner.languages import Language
from scanner.launcher.config_verdict import BOOL, handed_on, judge, merge_types
from scanner.model import DynamicRead, GateKind, ScanError, ScanResult, ScanStats, Site, Write
from scanner.patterns import dynamic_matches, matches
from scanner.reach.driven import DrivenEvidence
from scanner.reach.evidence import CodeReach
from scanner.reach.host_reads import host_reads, names_a_host
from scanner.reach.installed_fields import installed_fields, may_install
from scanner.reach.mode_writes import mode_writes
from scanner.reach.modules import Tree
from scanner.reach.table_writes import table_writes
from scanner.roles import propose_roles, reads_code
from scanner.run import proposals, snapshot, spread
from scanner.run.cache import Cache, prune
from scanner.run.pool import INTERNAL_ERROR, WORKER_DIED, Runner, bounded_jobs
from scanner.run.selection import Done, Progress, Selector
from scanner.run.work import (
    FileOutcome,
    FileTask,
    Options,
    cached,
)
from scanner.settings import Settings
from scanner.source.constants import forget
from scanner.source.files import (
    SourceError,
    SourceFile,
    iter_files,
    read_bytes,
    relative,
)
from scanner.syntax.index import Wrapper, WrapperIndex

MAX_ROUNDS = 16
# The byte prefilters of the passes over the whole tree after the rounds (the modules each
# parses), answered as the first round reads each module; a warm scan reads none for them.
BYTE_TESTS = (names_a_host, may_install)
# The parser and the analysis allocate millions of short-lived objects, few in cycles: the
# collector's default (a collection every 700 allocations) cost 15-20% of a cold scan, and
# one every 50,000 still 36 collections and 0.4-0.75 s of torch's (4 and 0.3 s at 200,000,
# at the same peak memory).
GC_THRESHOLD = (200_000, 20, 20)


def scan(
    paths: Iterable[str | Path],
    settings: Settings | None = None,
    *,
    root: str | Path | None = None,
    cache_dir: str | Path | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> ScanResult:
    """Scan ``paths`` for environment reads, as ``settings`` say (``Settings()`` when None:
    every file the default ``include`` names, every variable).

    ``root``: the folder output paths are relative to (the current folder by default);
    ``cache_dir``: where to keep per-file results (no cache when None); ``jobs``: worker
    processes (the machine's CPUs by default, 1 for none); ``progress``: called with
    ``(done, found)`` as files are done (it must not print to standard output).

    Python files, shell scripts (by name or by shebang), YAML configs, Dockerfiles and
    CI workflows are all read (``settings.include`` chooses); each site and write says its
    ``language``.
    """
    with _fewer_collections():
        return _scan(paths, settings, root=root, cache_dir=cache_dir, jobs=jobs, progress=progress)


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """The garbage collector run less often during the scan (and in the workers it forks),
    as it was set again after."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _scan(
    paths: Iterable[str | Path],
    settings: Settings | None,
    *,
    root: str | Path | None,
    cache_dir: str | Path | None,
    jobs: int | None,
    progress: Progress | None,
) -> ScanResult:
    base = Path(root) if root is not None else Path.cwd()
    settings = settings if settings is not None else Settings()
    options = Options(
        settings=settings, cache_dir=Path(cache_dir) if cache_dir is not None else None
    )
    if options.cache_dir is not None:
        prune(options.cache_dir)
        forget()  # what other files held at the last scan may have changed since
    files: list[SourceFile] = []
    errors: list[ScanError] = []
    given = [Path(p) for p in paths]
    outside = [rel for rel in (relative(p, base) for p in given) if rel.split("/")[0] == ".."]
    linked = _linked_outside(given, base, outside)
    found_files = iter_files(
        given,
        root=base,
        include=settings.include,
        exclude=settings.exclude,
        languages=settings.languages,
    )
    for found in found_files:
        if isinstance(found, ScanError):
            errors.append(found)
        else:
            files.append(found)
    done = Done(len(files), progress)
    store = Cache(options.cache_dir) if options.cache_dir is not None else None
    found_status = snapshot.statuses(files) if store is not None else None
    shown = [relative(p, base) for p in given]
    whole = snapshot.whole_key(settings, base, shown)
    stored = snapshot.load(store, whole, found_status, files) if store is not None else None
    kept = (store, proposals.key(settings, shown), found_status) if store and found_status else None
    if stored is not None:
        # Nothing changed since the last scan of these paths: its outcomes, read at once.
        done.finish()
        result = _result(
            stored.outcomes,
            set(),
            errors,
            stored.index,
            files,
            settings,
            stored.tested,
            kept,
            bounded_jobs(jobs),
        )
        notes = (*result.notes, *_outside_notes(outside), *linked)
        return replace(result, notes=notes)
    outcomes: dict[str, FileOutcome] = {}
    parsed: set[str] = set()  # files analysed in this scan, in any round
    counts = {"analyses": 0, "rounds": 0, "position_fallbacks": 0}
    index = WrapperIndex()
    selector = Selector(files, options, done, BYTE_TESTS)
    selection = selector.select()
    with Runner(options, jobs) as runner:
        for _ in range(MAX_ROUNDS):
            counts["rounds"] += 1
            todo = []
            for file, data in selection:
                task = FileTask(
                    path=file.path,
                    rel=file.rel,
                    module=file.module,
                    index=index,
                    language=file.language,
                )
                # Cache hits are read here, while the bytes are at hand: a warm scan
                # starts no worker and never loads the parser.
                hit = cached(task, options, data) if data is not None else None
                if hit is not None:
                    outcomes[file.rel] = hit
                    done.add()
                else:
                    todo.append(task)
                    runner.prepare(len(todo))
            for outcome in runner.run(todo):
                outcomes[outcome.rel] = outcome
                done.add()
                if not outcome.cached:
                    parsed.add(outcome.rel)
                    counts["analyses"] += 1
                    counts["position_fallbacks"] += outcome.fallbacks
            known = {(w.qualname, w.kind): w for w in index.facts}
            facts = dict(known)
            for outcome in outcomes.values():
                facts.update(((w.qualname, w.kind), w) for w in outcome.wrappers)
            new = [w for key, w in facts.items() if known.get(key) != w]
            index = WrapperIndex.of(facts.values())
            if not new:
                break
            done.finish()  # the later rounds analyse again files already counted
            selection = selector.select_callers(WrapperIndex.of(new), outcomes, runner)
    done.finish()
    transient = any(_transient(o) for o in outcomes.values())
    if store is not None and not transient:
        snapshot.save(store, whole, found_status, outcomes, index, selector.tested)
    result = _result(
        outcomes,
        parsed,
        errors,
        index,
        files,
        settings,
        selector.tested,
        None if transient else kept,
        bounded_jobs(jobs),
    )
    stats = replace(result.stats, **counts)
    notes = (*result.notes, *_outside_notes(outside), *linked)
    return replace(result, notes=notes, stats=stats)


def _transient(outcome: FileOutcome) -> bool:
    """Whether an outcome may differ next time with nothing changed: a worker that died,
    a scanner bug caught for one file."""
    error = outcome.error
    return error is not None and (
        error.message == WORKER_DIED or error.message.startswith(INTERNAL_ERROR)
    )


def _outside_notes(outside: Sequence[str]) -> tuple[str, ...]:
    """A note for the paths outside the folder output paths are relative to."""
    if not outside:
        return ()
    shown = ", ".join(outside[:3]) + (f" and {len(outside) - 3} more" if len(outside) > 3 else "")
    return (
        f"{shown} lies outside the current folder: its files are scanned, and their paths "
        "start with '..'.",
    )


def _linked_outside(given: Sequence[Path], base: Path, outside: Sequence[str]) -> tuple[str, ...]:
    """A note for each path inside the folder that is a link to somewhere outside it."""
    home = Path(os.path.realpath(base))
    notes = []
    for path in given:
        rel = relative(path, base)
        real = Path(os.path.realpath(path))
        if rel not in outside and real != home and home not in real.parents:
            notes.append(
                f"{rel} is a link to {real}, outside the current folder: its files are scanned."
            )
    return tuple(notes)


def _uncalled(wrapper: Wrapper) -> DynamicRead:
    """A wrapper that builds the name from its parameter, and that no call in the tree
    passes a known value: its read, with the pattern of the names it can read."""
    function = wrapper.qualname[len(wrapper.module) + 1 :] if wrapper.module else wrapper.qualname
    return DynamicRead(
        path=wrapper.path,
        line=wrapper.read_line or wrapper.line,
        column=wrapper.read_column or 1,
        expression=wrapper.pattern or "",
        function=function,
        reason=(
            f"the name is built from the parameter {wrapper.name_param!r}, "
            "and no call in the tree passes a known value"
        ),
    )


def _result(
    outcomes: dict[str, FileOutcome],
    parsed: set[str],
    errors: list[ScanError],
    index: WrapperIndex,
    files: Sequence[SourceFile],
    settings: Settings,
    tested: snapshot.Tested,
    kept: tuple[Cache, str, dict[str, snapshot.Status]] | None = None,
    jobs: int = 1,
) -> ScanResult:
    """The scan's result; ``tested``: what ``BYTE_TESTS`` said of the modules read;
    ``kept``: the cache, the entry the code's evidence for roles is read from and kept in,
    and the files' statuses; ``jobs``: the processes the code's evidence may be judged in."""
    ordered = [outcomes[rel] for rel in sorted(outcomes)]
    sites = [s for o in ordered for s in o.result.sites if matches(s.name, settings.match)]
    found = [d for o in ordered for d in o.result.dynamic]
    called = index.reached_from({s.via for s in sites} | {d.via for d in found})
    found.extend(
        _uncalled(w)
        for w in index.wrappers.values()
        if w.pattern is not None
        and w.qualname not in called
        and dynamic_matches(w.pattern, settings.match)
    )
    dynamic = sorted(found, key=lambda d: d.sort_key)
    sites = _config_verdicts(sites, ordered, settings)
    writes = sorted((w for o in ordered for w in o.result.writes), key=lambda w: w.sort_key)
    errors = [*errors, *(o.error for o in ordered if o.error is not None)]
    problems = sorted({o.cache_problem for o in ordered if o.cache_problem})
    notes = (
        *(f"{o.rel}, {note}" for o in ordered for note in o.notes),
        *(f"The cache was skipped: {p}" for p in problems[:1]),
    )
    python = [(f.rel, f.path, f.module) for f in files if f.language is Language.PYTHON]
    tree = Tree({rel: (path, module) for rel, path, module in python})
    hosting, installing = tree.matching(*BYTE_TESTS, known=tested)
    hosted = [s for s in host_reads(tree, hosting) if matches(s.name, settings.match)]
    knobs = build_knobs([*sites, *hosted])
    readable = [k for k in knobs if reads_code(k)]
    if kept is None:
        reach = CodeReach(tree, knobs)
        ready = spread.judged(reach, tree, readable, jobs, record=False)
        evidence = DrivenEvidence(spread.Ready(reach, ready), writes, knobs)
        proposed = propose_roles(knobs, writes, evidence)
    else:
        stored = proposals.load(*kept, python)
        reach = CodeReach(tree, knobs)
        code = proposals.KeptEvidence(reach, tree, stored)
        todo = [k for k in readable if not code.holds(k)]
        code.ready = spread.judged(code.code, tree, todo, jobs, record=True)
        proposed = propose_roles(knobs, writes, DrivenEvidence(code, writes, knobs))
        if (
            code.computed
            or stored is None
            or stored.files != proposals.files_kept(kept[2])
            or set(stored.knobs) != set(code.found)
        ):
            proposals.save(*kept, python, code.found, stored.digests if stored else {})
    # The entries of launch-environment tables the tree's loops install (after the roles:
    # what a launcher sets is no evidence of what a gate reaches).
    tabled = table_writes(tree, [(w.qualname, w.source) for w in index.setters.values()])
    # And the YAML mappings that fill a config field the tree's classes install.
    fields = installed_fields(tree, installing, _configs(files) if installing else b"")
    filled = _field_block_writes(files, fields, settings) if fields else []
    if tabled or filled:
        writes = sorted([*writes, *tabled, *filled], key=lambda w: w.sort_key)
    # The reach is asked for branches only where a determinism knob is (looked up then).
    written = mode_writes(tree, proposed, writes, lambda knob: reach.branches_of(knob))
    return ScanResult(
        knobs=link_writes(proposed, writes),
        dynamic=tuple(dynamic),
        writes=tuple(writes),
        errors=tuple(sorted(errors, key=lambda e: e.path)),
        wrappers=tuple(w.info() for w in index.wrappers.values()),
        files_scanned=len(files),
        mode_writes=written,
        modules=tuple((rel, module) for rel, _, module in python),
        notes=notes,
        stats=ScanStats(
            files_parsed=len(parsed),
            cache_hits=sum(1 for o in ordered if o.rel not in parsed),
        ),
    )


def _config_verdicts(
    sites: list[Site], ordered: Sequence[FileOutcome], settings: Settings
) -> list[Site]:
    """Sites whose value is handed on to a config key (a YAML value, a shell flag) and
    left unknown for want of the key's type, or called a value for the words of a key
    the tree's YAML files type as a boolean (``deterministic_mode``), judged again with
    the types the whole tree's YAML files give their keys (the trainer's config classes
    first)."""
    handed = [
        (i, found)
        for i, s in enumerate(sites)
        if s.gate.kind in (GateKind.UNKNOWN, GateKind.VALUE) and (found := handed_on(s)) is not None
    ]
    if not handed:
        return sites
    types = merge_types(o.result.config_keys for o in ordered)
    types.update(settings.config_types)
    judged = list(sites)
    for i, (key, where) in handed:
        site = sites[i]
        if site.gate.kind is GateKind.VALUE and (key is None or types.get(key) != BOOL):
            continue
        judged[i] = replace(site, gate=judge(site.name, site.default, key, types, where))
    return judged


def _field_block_writes(
    files: Sequence[SourceFile], fields: frozenset[str], settings: Settings
) -> list[Write]:
    """``scanner.launcher.field_blocks``' writes, imported where a tree has such a field
    (it loads PyYAML, which a warm scan of most trees never needs)."""
    from scanner.launcher.field_blocks import field_block_writes

    return field_block_writes(files, fields, settings)


def _configs(files: Sequence[SourceFile]) -> bytes:
    """The bytes of the tree's YAML files, joined (what a config field may be filled from)."""
    found = []
    for file in files:
        if file.language is Language.YAML:
            try:
                found.append(read_bytes(file.path))
            except (SourceError, OSError):
                continue
    return b"\n".join(found)
