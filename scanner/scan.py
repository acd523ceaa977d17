"""The scan: walk the tree, analyse files to a fixed point of wrappers, gather knobs.

Files whose bytes cannot hold a read are never parsed. Each file that can is
analysed once with the wrappers known so far; when the analysis of the tree
finds new wrappers, only the files that mention their names are analysed again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from scanner.files import DEFAULT_INCLUDE, MAX_FILE_BYTES, SourceFile, iter_files
from scanner.index import Wrapper, WrapperIndex
from scanner.knobs import build_knobs
from scanner.model import ScanError, ScanResult, ScanStats
from scanner.patterns import matches
from scanner.pool import Runner
from scanner.work import ENV_WORDS, FileOutcome, FileTask, Options, cached, words_pattern

MAX_ROUNDS = 16
_ENV_BYTES = tuple(word.encode() for word in ENV_WORDS)


def scan(
    paths: Iterable[str | Path],
    *,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    match: Sequence[str] = (),
    root: str | Path | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    cache_dir: str | Path | None = None,
    jobs: int | None = None,
    narrow: bool = True,
) -> ScanResult:
    """Scan ``paths`` for environment reads.

    ``include``: file-name patterns for files found in folders; ``exclude``:
    globs of paths to skip; ``match``: shell-style patterns of variable names
    to report (all when empty); ``root``: the folder output paths are relative
    to (the current folder by default); ``cache_dir``: where to keep per-file
    results (no cache when None); ``jobs``: worker processes (the machine's
    CPUs by default, 1 for none); ``narrow``: parse only the statements that
    matter (the results are the same either way).
    """
    base = Path(root) if root is not None else Path.cwd()
    options = Options(
        match=tuple(match),
        narrow=narrow,
        max_file_bytes=max_file_bytes,
        cache_dir=Path(cache_dir) if cache_dir is not None else None,
    )
    files: list[SourceFile] = []
    errors: list[ScanError] = []
    for found in iter_files([Path(p) for p in paths], root=base, include=include, exclude=exclude):
        if isinstance(found, ScanError):
            errors.append(found)
        else:
            files.append(found)
    outcomes: dict[str, FileOutcome] = {}
    index = WrapperIndex()
    wanted: Callable[[bytes, str], bool] = partial(_has_words, words_pattern(ENV_WORDS))
    with Runner(options, jobs) as runner:
        for _ in range(MAX_ROUNDS):
            todo = []
            for file, data in _selected(files, wanted, options.max_file_bytes, outcomes):
                task = FileTask(file.path, file.rel, file.module, index)
                # Cache hits are read here, while the bytes are at hand: a warm scan
                # starts no worker and never loads the parser.
                hit = cached(task, options, data) if data is not None else None
                if hit is not None:
                    outcomes[file.rel] = hit
                else:
                    todo.append(task)
            outcomes.update((o.rel, o) for o in runner.run(todo))
            wrappers: dict[str, Wrapper] = dict(index.wrappers)
            for outcome in outcomes.values():
                wrappers.update((w.qualname, w) for w in outcome.wrappers)
            new = [w for q, w in wrappers.items() if index.wrappers.get(q) != w]
            index = WrapperIndex.of(wrappers.values())
            if not new:
                break
            wanted = partial(_names_any, [_Named.of(w) for w in new])
    return _result(outcomes, errors, index, len(files), options)


def _has_words(pattern: re.Pattern[bytes], data: bytes, rel: str) -> bool:
    # A plain substring test first: it runs at memchr speed and rules out most files.
    return any(word in data for word in _ENV_BYTES) and pattern.search(data) is not None


@dataclass(frozen=True, slots=True)
class _Named:
    """What a file must contain to call a wrapper, precomputed for the byte tests."""

    short: bytes
    anchor: bytes
    wrapper: Wrapper

    @classmethod
    def of(cls, wrapper: Wrapper) -> _Named:
        return cls(wrapper.short_name.encode(), wrapper.anchor.encode(), wrapper)


def _names_any(named: list[_Named], data: bytes, rel: str) -> bool:
    return any(
        n.short in data
        and (n.anchor in data or rel == n.wrapper.path)
        and n.wrapper.named_in(data, rel)
        for n in named
    )


def _selected(
    files: list[SourceFile],
    wanted: Callable[[bytes, str], bool],
    max_bytes: int,
    outcomes: dict[str, FileOutcome],
) -> Iterator[tuple[SourceFile, bytes | None]]:
    """The files whose bytes are ``wanted``, with those bytes (None for a file that cannot
    be read, which its worker reports)."""
    for file in files:
        try:
            if file.path.stat().st_size > max_bytes:
                if file.rel not in outcomes:
                    yield file, None
                continue
            data = file.path.read_bytes()
        except OSError:
            if file.rel not in outcomes:
                yield file, None
            continue
        if wanted(data, file.rel):
            yield file, data


def _result(
    outcomes: dict[str, FileOutcome],
    errors: list[ScanError],
    index: WrapperIndex,
    count: int,
    options: Options,
) -> ScanResult:
    ordered = [outcomes[rel] for rel in sorted(outcomes)]
    sites = [s for o in ordered for s in o.result.sites if matches(s.name, options.match)]
    dynamic = sorted((d for o in ordered for d in o.result.dynamic), key=lambda d: d.sort_key)
    writes = sorted((w for o in ordered for w in o.result.writes), key=lambda w: w.sort_key)
    errors = [*errors, *(o.error for o in ordered if o.error is not None)]
    problems = sorted({o.cache_problem for o in ordered if o.cache_problem})
    notes = tuple(f"The cache was skipped: {p}" for p in problems[:1])
    return ScanResult(
        knobs=build_knobs(sites),
        dynamic=tuple(dynamic),
        writes=tuple(writes),
        errors=tuple(sorted(errors, key=lambda e: e.path)),
        wrappers=tuple(w.info() for w in index.wrappers.values()),
        files_scanned=count,
        notes=notes,
        stats=ScanStats(
            files_parsed=sum(1 for o in ordered if not o.cached),
            cache_hits=sum(1 for o in ordered if o.cached),
        ),
    )
