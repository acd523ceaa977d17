"""A whole scan's outcomes, stored under the status of every file it found (size, times,
inode): a warm scan of a tree where nothing changed reads this one cache entry instead of
every file's bytes and every file's entry (with what the first round's byte tests said of
each Python module: ``scanner.run.selection``).

A file modified within ``RACY_NS`` of the scan's end could change again without its times
showing it (the clock's tick), as git's racily clean files: then nothing is stored, and the
next scan reads every file as before. (A later write moves an older modification time; a
change of the time back moves the change time.) What an outcome learnt from other files
(constants it imported) is checked again before the stored scan is trusted.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scanner.run import codec
from scanner.run.cache import Cache, CacheError, entry_key
from scanner.run.work import FileOutcome, FileTask, decode_outcome, encode_outcome, fresh
from scanner.settings import Settings
from scanner.source.files import SourceFile
from scanner.syntax.index import WrapperIndex

RACY_NS = 2_000_000_000
Status = list[int | str]  # size, mtime_ns, ctime_ns, inode, language
Tested = Mapping[str, tuple[bool, ...]]  # each module's answers to the byte tests


@dataclass(frozen=True, slots=True)
class Stored:
    """What a stored scan gives back."""

    outcomes: dict[str, FileOutcome]
    index: WrapperIndex
    tested: Tested


def statuses(files: Sequence[SourceFile]) -> dict[str, Status] | None:
    """Each file's status; None when one cannot be had (nothing is stored or trusted)."""
    found: dict[str, Status] = {}
    for file in files:
        try:
            status = file.path.stat()
        except OSError:
            return None
        found[file.rel] = [
            status.st_size,
            status.st_mtime_ns,
            status.st_ctime_ns,
            status.st_ino,
            str(file.language),
        ]
    return found


def whole_key(settings: Settings, base: Path, given: Sequence[str]) -> str:
    """The key of the stored scan of ``given`` (paths as the scan shows them) from ``base``
    with ``settings`` (include and exclude too: they choose the files)."""
    return entry_key(
        b"whole-scan",
        settings.key(),
        repr((settings.include, settings.exclude)),
        str(base.absolute()),
        *given,
    )


def load(
    cache: Cache, key: str, found: Mapping[str, Status] | None, files: Sequence[SourceFile]
) -> Stored | None:
    """The stored outcomes, wrapper index and byte tests' answers, when every file's status
    is as stored and what the outcomes learnt from other files still holds; None otherwise."""
    if found is None:
        return None
    stored = cache.get(key)
    if not isinstance(stored, dict) or stored.get("files") != found:
        return None
    try:
        outcomes = {
            rel: decode_outcome(rel, entry) for rel, entry in codec.decode_pairs(stored["outcomes"])
        }
        index = WrapperIndex.of(codec.decode_wrapper(w) for w in codec.decode_list(stored["index"]))
        tested = {rel: _answers(answers) for rel, answers in codec.decode_pairs(stored["tested"])}
    except (KeyError, TypeError, ValueError):
        return None  # a damaged or forged entry: a miss
    by_rel = {file.rel: file for file in files}
    for rel, outcome in outcomes.items():
        file = by_rel.get(rel)
        if file is None:
            return None
        task = FileTask(path=file.path, rel=rel, module=file.module, index=index)
        if not fresh(task, outcome):
            return None
    return Stored(outcomes, index, tested)


def _answers(value: Any) -> tuple[bool, ...]:
    answers = tuple(codec.decode_list(value))
    if not all(isinstance(a, bool) for a in answers):
        raise TypeError("a list of booleans was expected")
    return answers


def save(
    cache: Cache,
    key: str,
    found: Mapping[str, Status] | None,
    outcomes: Mapping[str, FileOutcome],
    index: WrapperIndex,
    tested: Tested,
) -> bool:
    """Store the scan's outcomes under the files' status (not when a status is missing or
    too recent to be trusted, nor when an outcome says the cache was skipped); whether
    they are stored."""
    if found is None or any(o.cache_problem for o in outcomes.values()):
        return False
    recent = time.time_ns() - RACY_NS
    if any(int(status[1]) >= recent for status in found.values()):
        return False
    entry: dict[str, Any] = {
        "files": dict(found),
        "outcomes": [[rel, encode_outcome(outcomes[rel])] for rel in sorted(outcomes)],
        "index": [codec.encode_wrapper(w) for w in index.facts],
        "tested": [[rel, list(tested[rel])] for rel in sorted(tested)],
    }
    try:
        cache.put(key, entry)
    except CacheError:  # the per-file entries are stored already
        return False
    return True
