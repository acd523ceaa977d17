"""Which files each round of a scan analyses, and how many of the files found are done.

The first round takes every file its language's prefilter wants, reading each file's bytes
once; later rounds take the Python files that can call a wrapper the last round found. With
a cache, the files that name a round's new wrappers are stored with their digests, so the
next scan searches only the files whose bytes changed.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

from scanner.languages import Language
from scanner.reach.modules import MAX_MODULE_BYTES
from scanner.run.cache import Cache, CacheError, entry_key
from scanner.run.pool import Runner
from scanner.run.readers import READERS
from scanner.run.work import FileOutcome, Options, fingerprint
from scanner.source.files import SourceError, SourceFile, read_bytes, unsupported_encoding
from scanner.syntax.index import WrapperIndex

# Told, as the first round goes, how many of the files found are done: (done, found).
Progress = Callable[[int, int], None]
# A test of a Python module's bytes, for a pass over the whole tree after the rounds.
ByteTest = Callable[[bytes], bool]


class Done:
    """Counts the files the first round has done, for ``progress``."""

    def __init__(self, found: int, progress: Progress | None) -> None:
        self.found = found
        self.count = 0
        self.progress = progress if found else None
        if self.progress is not None:
            self.progress(0, found)

    def add(self) -> None:
        if self.progress is not None:
            self.count += 1
            self.progress(self.count, self.found)

    def finish(self) -> None:
        if self.progress is not None and self.count < self.found:
            self.count = self.found
            self.progress(self.found, self.found)
        self.progress = None


def _names_any(
    new: WrapperIndex, max_bytes: int, files: Sequence[tuple[Path, str]]
) -> list[bool | None]:
    """For each file, whether it can call one of the ``new`` wrappers (None: unreadable,
    and so for its worker to report)."""
    found: list[bool | None] = []
    for path, rel in files:
        try:
            data = read_bytes(path, max_bytes)
        except SourceError:
            found.append(None)
            continue
        found.append(bool(new.callable_from(data, rel)))
    return found


class Selector:
    """Picks the files each round analyses, reading every file's bytes once per round.

    The first round also records a digest of every file, and what ``tests`` say of each
    Python module's bytes (the later passes over the whole tree read no module again for
    them). With a cache, the files that mention a round's new wrappers are stored with
    those digests, so the next scan looks for wrapper names only in the files whose bytes
    changed.
    """

    def __init__(
        self,
        files: list[SourceFile],
        options: Options,
        done: Done,
        tests: Sequence[ByteTest] = (),
    ) -> None:
        self.files = files
        self.options = options
        self.done = done
        self.tests = tests
        self.digests: dict[str, str] = {}
        # Each module's answers to ``tests``, in their order (a module the reach would not
        # read, as too large, and one that could not be read are left for it to read).
        self.tested: dict[str, tuple[bool, ...]] = {}

    def select(self) -> Iterator[tuple[SourceFile, bytes | None]]:
        """The files whose bytes are ``wanted`` (Python) or can hold a read or a write
        (shell, YAML), with those bytes (None for a file that cannot be read, which its
        worker reports), one at a time: memory holds one file. A file in an encoding
        that is not read (UTF-16) is selected too, for its worker to report."""
        wanted = {
            language: reader.wanted(self.options.settings) for language, reader in READERS.items()
        }
        for file in self.files:
            data = self._read(file)
            if (
                self.tests
                and data is not None
                and file.language is Language.PYTHON
                and len(data) <= MAX_MODULE_BYTES
            ):
                self.tested[file.rel] = tuple(test(data) for test in self.tests)
            if (
                data is None
                or wanted[file.language](data)
                or unsupported_encoding(data) is not None
            ):
                yield file, data
            else:
                self.done.add()

    def select_callers(
        self, new: WrapperIndex, outcomes: dict[str, FileOutcome], runner: Runner
    ) -> Iterator[tuple[SourceFile, bytes | None]]:
        """The files that can call one of the ``new`` wrappers (the workers search them)."""
        cache = Cache(self.options.cache_dir) if self.options.cache_dir is not None else None
        key = entry_key(b"callers", fingerprint(tuple(new.wrappers.values())))
        known = _known_selection(cache.get(key) if cache is not None else None)
        unchanged = {
            rel: names for rel, (digest, names) in known.items() if self.digests.get(rel) == digest
        }
        python = [f for f in self.files if f.language is Language.PYTHON]
        searched = [(f.path, f.rel) for f in python if f.rel not in unchanged]
        search = partial(_names_any, new, self.options.settings.max_file_bytes)
        calls = dict(
            zip((rel for _, rel in searched), runner.search(search, searched), strict=True)
        )
        found: list[str] = []
        for file in python:
            if unchanged.get(file.rel, calls.get(file.rel)) is False:
                continue  # names none of them (unchanged since the last scan, or searched)
            data = self._read(file)
            if data is None:
                if file.rel not in outcomes:
                    yield file, None
                continue
            found.append(file.rel)
            yield file, data
        if cache is not None:
            chosen = set(found)
            entry = {rel: [digest, rel in chosen] for rel, digest in self.digests.items()}
            with contextlib.suppress(CacheError):  # each file's entry reports it too
                cache.put(key, entry)

    def _read(self, file: SourceFile) -> bytes | None:
        try:
            data = read_bytes(file.path, self.options.settings.max_file_bytes)
        except SourceError:
            return None
        if self.options.cache_dir is not None and file.rel not in self.digests:
            self.digests[file.rel] = hashlib.sha256(data).hexdigest()
        return data


def _known_selection(stored: object) -> dict[str, tuple[str, bool]]:
    """``rel -> (digest, names a wrapper)`` from a cache entry; empty when malformed."""
    if not isinstance(stored, dict):
        return {}
    known: dict[str, tuple[str, bool]] = {}
    for rel, value in stored.items():
        if (
            isinstance(value, list)
            and len(value) == 2
            and isinstance(value[0], str)
            and isinstance(value[1], bool)
        ):
            known[rel] = (value[0], value[1])
    return known
