"""The scan: walk the tree, find wrappers to a fixed point, analyse each file, gather knobs."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from pathlib import Path

import libcst as cst

from scanner.analyze import FileResult, analyze
from scanner.files import (
    DEFAULT_INCLUDE,
    MAX_FILE_BYTES,
    SourceError,
    SourceFile,
    decode_source,
    iter_files,
    read_bytes,
)
from scanner.index import WrapperIndex
from scanner.knobs import build_knobs
from scanner.model import ScanError, ScanResult
from scanner.module import ParsedModule
from scanner.wrappers import discover

# Bytes every file holding a direct read or write contains.
ENV_WORDS = (b"environ", b"getenv", b"putenv", b"unsetenv")


def scan(
    paths: Iterable[str | Path],
    *,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    match: Sequence[str] = (),
    root: str | Path | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
) -> ScanResult:
    """Scan ``paths`` for environment reads.

    ``include``: file-name patterns for files found in folders; ``exclude``:
    globs of paths to skip; ``match``: shell-style patterns of variable names
    to report (all when empty); ``root``: the folder output paths are relative
    to (the current folder by default).
    """
    base = Path(root) if root is not None else Path.cwd()
    files: list[SourceFile] = []
    errors: list[ScanError] = []
    for found in iter_files([Path(p) for p in paths], root=base, include=include, exclude=exclude):
        if isinstance(found, ScanError):
            errors.append(found)
        else:
            files.append(found)
    tree = _Tree(files, max_file_bytes)
    index = tree.wrappers()
    results = [analyze(parsed, index, match) for parsed in tree.parsed(_words(index))]
    errors.extend(tree.errors)
    return _result(results, errors, index, len(files))


class _Tree:
    """The files of one scan, read and parsed on demand, each once."""

    def __init__(self, files: list[SourceFile], max_file_bytes: int) -> None:
        self.files = files
        self.max_file_bytes = max_file_bytes
        self.errors: list[ScanError] = []
        self._data: dict[str, bytes | None] = {}
        self._parsed: dict[str, ParsedModule | None] = {}

    def _bytes(self, file: SourceFile) -> bytes | None:
        if file.rel not in self._data:
            try:
                self._data[file.rel] = read_bytes(file.path, self.max_file_bytes)
            except SourceError as exc:
                self.errors.append(ScanError(file.rel, str(exc)))
                self._data[file.rel] = None
        return self._data[file.rel]

    def _parse(self, file: SourceFile) -> ParsedModule | None:
        if file.rel not in self._parsed:
            data = self._bytes(file)
            parsed = None
            if data is not None:
                try:
                    parsed = ParsedModule.parse(file.rel, file.module, decode_source(data))
                except SourceError as exc:
                    self.errors.append(ScanError(file.rel, str(exc)))
                except cst.ParserSyntaxError as exc:
                    self.errors.append(ScanError(file.rel, _syntax_message(data, exc)))
            self._parsed[file.rel] = parsed
        return self._parsed[file.rel]

    def parsed(self, words: Sequence[bytes]) -> list[ParsedModule]:
        """The parsed files whose bytes contain one of ``words``, in path order."""
        found = []
        for file in self.files:
            data = self._bytes(file)
            if data is not None and any(w in data for w in words):
                parsed = self._parse(file)
                if parsed is not None:
                    found.append(parsed)
        return found

    def wrappers(self) -> WrapperIndex:
        """Discover wrappers, then wrappers of those wrappers, until nothing new appears."""
        index = WrapperIndex()
        words: Sequence[bytes] = ENV_WORDS
        while True:
            new = {}
            for parsed in self.parsed(words):
                for wrapper in discover(parsed, index):
                    if wrapper.qualname not in index.wrappers:
                        new[wrapper.qualname] = wrapper
            if not new:
                return index
            index = WrapperIndex.of([*index.wrappers.values(), *new.values()])
            words = sorted({w.short_name.encode() for w in new.values()})


def _words(index: WrapperIndex) -> list[bytes]:
    return [*ENV_WORDS, *sorted(n.encode() for n in index.short_names)]


def _syntax_message(data: bytes, exc: cst.ParserSyntaxError) -> str:
    # CPython's own parser places syntax errors best; libcst's message is the fallback
    # for the rare file CPython accepts and libcst does not.
    try:
        compile(data, "<scanned>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return f"Syntax error at line {error.lineno}, column {error.offset}: {error.msg}."
    except ValueError:
        pass
    return f"libcst cannot parse this file (line {exc.raw_line}): {exc.message}."


def _result(
    results: list[FileResult], errors: list[ScanError], index: WrapperIndex, count: int
) -> ScanResult:
    sites = [s for r in results for s in r.sites]
    dynamic = sorted((d for r in results for d in r.dynamic), key=lambda d: d.sort_key)
    writes = sorted((w for r in results for w in r.writes), key=lambda w: w.sort_key)
    return ScanResult(
        knobs=build_knobs(sites),
        dynamic=tuple(dynamic),
        writes=tuple(writes),
        errors=tuple(sorted(errors, key=lambda e: e.path)),
        wrappers=tuple(w.info() for w in index.wrappers.values()),
        files_scanned=count,
    )
