"""The reader registry: one entry per row of the table of languages (scanner.languages), with
its prefilter, its reader and the word the table's "read in" column shows."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import MappingProxyType

from scanner.accessors import prefilter
from scanner.languages import LANGUAGES, Language, Row
from scanner.model import LauncherRead, ScanError
from scanner.run.work import FileOutcome, FileTask, Options, launcher_outcome, python_outcome
from scanner.settings import Settings
from scanner.source.files import SourceError, read_bytes, unsupported_encoding
from scanner.source.own_files import written_by_knobs

Wanted = Callable[[bytes], bool]
# A launcher language's reader: (rel, data, text, settings, absolute path) -> what it found.
LauncherReader = Callable[[str, bytes, str, Settings, Path], LauncherRead]


@dataclass(frozen=True, slots=True)
class Reader:
    """How the files of one language are read."""

    language: Language
    display: str  # the "read in" column's word for the layer (py, sh, yaml, ...)
    # The prefilter, for these settings: whether a file's bytes can hold a read (a file
    # whose bytes cannot is never parsed).
    wanted: Callable[[Settings], Wanted]
    read: Callable[[FileTask, Options, bytes], FileOutcome]  # its outcome, from its bytes


def _every_file(settings: Settings) -> Wanted:
    """Every launcher file is read: `unset X`, `[[ -v X ]]` need no `$`, and a YAML file
    with no read still gives its keys' types."""
    return _any_bytes


def _any_bytes(data: bytes) -> bool:
    return True


def _python_prefilter(settings: Settings) -> Wanted:
    return prefilter(settings.accessors)


def _reader(row: Row) -> Reader:
    if row.reader is None:
        return Reader(row.language, row.display, _python_prefilter, python_outcome)
    own = partial(_not_own, row.reader)
    return Reader(row.language, row.display, _every_file, partial(launcher_outcome, own))


def _not_own(
    reader: str, task: FileTask, settings: Settings, data: bytes, text: str
) -> FileOutcome:
    """What ``reader`` (``module:function``, imported now) finds in the file, except for a
    file knobs wrote (a registry, an export): it holds nothing to read."""
    if written_by_knobs(data):
        return FileOutcome(rel=task.rel)
    read = launcher_reader(reader)(task.rel, data, text, settings, task.path.absolute())
    return FileOutcome(rel=task.rel, result=read.result, error=read.error, depends=read.depends)


@functools.cache
def launcher_reader(name: str) -> LauncherReader:
    """The function a row of the table of languages names (``module:function``), imported
    once per process."""
    module, _, function = name.partition(":")
    found: LauncherReader = getattr(importlib.import_module(module), function)
    return found


READERS: Mapping[Language, Reader] = MappingProxyType({r.language: _reader(r) for r in LANGUAGES})


def display(language: Language) -> str:
    """The word the "read in" column shows for ``language``."""
    return READERS[language].display


def process(task: FileTask, options: Options, data: bytes | None = None) -> FileOutcome:
    """The outcome of one file, by its language's reader: its wrappers and the sites,
    dynamic reads and writes it holds, or its error."""
    if data is None:
        try:
            data = read_bytes(task.path, options.settings.max_file_bytes)
        except SourceError as exc:
            return FileOutcome(rel=task.rel, error=ScanError(task.rel, str(exc)))
    problem = unsupported_encoding(data)
    if problem is not None:
        return FileOutcome(rel=task.rel, error=ScanError(task.rel, problem))
    return READERS[task.language].read(task, options, data)
