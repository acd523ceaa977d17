"""Judge the runs of one setting: equal outputs, a first difference, or an error.

Modes: `stdout` (the whole standard output), `regex:PATTERN` (only the lines of
standard output where PATTERN matches), `file:PATH` (the bytes of a file the
command writes, relative to its working directory) and `tensors:PATH` (a
`torch.save`d tensor or dict of tensors, compared bit for bit; or a folder of a
distributed run's shards, see shards.py) and `checksums:DIR` (the per-module
checksums a run records with knobregistry.torch into DIR, which triage names in
KNOBS_CHECKSUMS; see checksums.py). A PATH is read only inside the run's
working directory: `..` out of it is refused when the option is parsed, a symlink
out of it (which the command may have made) is an error for that run. In `regex:`
mode, output whose matching lines all carry a rank prefix is compared rank by rank
(see ranks.py).

Outputs are compared as streams (see streams.py): digests first, then, only when
they differ, a second pass for the first differing line or byte; memory does not
grow with the output.
"""

from __future__ import annotations

import importlib.util
import os
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from knobregistry._io.checksum_format import ENVIRONMENT_VARIABLE
from knobregistry._io.files import leads_inside
from knobregistry.registry import Verdict
from knobregistry.triage import checksums, ranks, shards, streams
from knobregistry.triage.model import Run
from knobregistry.triage.tensors import TensorFileError, load_tensors, tensors_difference

MODES = ("stdout", "regex:PATTERN", "file:PATH", "tensors:PATH", "checksums:DIR")
STDERR_TAIL_LINES = 12
TAIL_BYTES = 16384
SHOWN_CHARS = 160


class CompareError(ValueError):
    """A --compare value that cannot be used."""


class _Unusable(Exception):
    """An output that cannot be compared: no file, no matching line."""


@dataclass(frozen=True, slots=True)
class CompareMode:
    kind: str  # stdout | regex | file | tensors | checksums
    argument: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.argument}" if self.argument else self.kind

    def environment(self, folder: Path, env: Mapping[str, str]) -> Mapping[str, str]:
        """``env`` for a run in ``folder``; in checksums mode, with KNOBS_CHECKSUMS naming
        the folder the run records into."""
        if self.kind != "checksums":
            return env
        return {**env, ENVIRONMENT_VARIABLE: str(folder.absolute() / self.argument)}


def parse_compare(text: str) -> CompareMode:
    """Parse a --compare value; raises CompareError with what to write instead."""
    kind, colon, argument = text.partition(":")
    if text == "stdout":
        return CompareMode("stdout")
    if kind not in ("regex", "file", "tensors", "checksums") or not colon or not argument:
        raise CompareError(f"--compare '{text}': write one of {', '.join(MODES)}.")
    if kind == "regex":
        try:
            re.compile(argument)
        except re.error as exc:
            raise CompareError(f"--compare '{text}': the pattern does not compile: {exc}.") from exc
    elif Path(argument).is_absolute():
        raise CompareError(
            f"--compare '{text}': give a path relative to the run's working directory; "
            "each run has its own, so concurrent runs do not overwrite each other's file."
        )
    elif posixpath.normpath(argument).split("/")[0] == "..":
        raise CompareError(
            f"--compare '{text}': the path leads out of the run's working directory ('..'); "
            "give one inside it, where the command writes its output."
        )
    if kind == "tensors" and importlib.util.find_spec("torch") is None:
        raise CompareError(
            f"--compare '{text}' needs torch in the environment that runs knobs; pip install torch."
        )
    return CompareMode(kind, argument)


def judge(mode: CompareMode, runs: Sequence[Run], timeout: float | None) -> tuple[Verdict, str]:
    """The verdict on ``runs`` of one setting, and its detail ("" when reproducible).

    A run that failed or timed out makes the verdict `error`, whatever the outputs.
    """
    for run in runs:
        if run.timed_out or run.returncode != 0:
            return Verdict.ERROR, _failure(run, timeout)
    try:
        first = _observe(mode, runs[0])
        for run in runs[1:]:
            difference = _difference(mode, first, _observe(mode, run))
            if difference is not None:
                return Verdict.BREAKS_BITWISE, f"run {run.index} differs from run 1 {difference}"
    except _Unusable as exc:
        return Verdict.ERROR, str(exc)
    return Verdict.REPRODUCIBLE, ""


def _failure(run: Run, timeout: float | None) -> str:
    if run.timed_out:
        what = f"run {run.index} timed out after {timeout:g} s and was stopped"
    elif run.returncode is not None and run.returncode < 0:
        what = f"run {run.index} was killed by signal {-run.returncode}"
    else:
        what = f"run {run.index} exited with status {run.returncode}"
    tail = stderr_tail(run.stderr)
    if not tail:
        return f"{what}; its stderr is empty."
    return f"{what}; the end of its stderr:\n" + "\n".join(f"  {line}" for line in tail)


def stderr_tail(path: Path, lines: int = STDERR_TAIL_LINES) -> list[str]:
    """The last non-blank ``lines`` of a run's stderr (read from its last 16 KiB only)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(max(0, size - TAIL_BYTES))
            text = file.read(TAIL_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return []
    kept = [line.rstrip() for line in text.splitlines() if line.strip()]
    return kept[-lines:]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Observed:
    """What a run's output is, at a glance; the files are read again only to find a difference."""

    run: Run
    path: Path | None = None  # the output compared, for stdout, regex and file modes
    summary: streams.Summary | None = None
    matched: bytes = b""  # regex: the digest of the matching lines
    tensors: dict[str, Any] | None = None
    shards: Path | None = None  # tensors: a folder of a distributed run's shards
    ranked: ranks.Ranked | None = None  # regex: the matching lines, rank by rank
    records: dict[int, checksums.RankRecords] | None = None  # checksums: rank by rank

    @property
    def has_lines(self) -> bool:
        """Whether the output reads as at least one line of text."""
        return self.summary is not None and self.summary.size > 0 and self.summary.utf8


def _observe(mode: CompareMode, run: Run) -> _Observed:
    if mode.kind == "stdout":
        summary = streams.summarize(run.stdout)
        return _Observed(
            run=run, path=run.stdout, summary=replace(summary, utf8=True)
        )  # shown with U+FFFD
    if mode.kind == "regex":
        ranked = ranks.ranked_digests(run.stdout, _matcher(mode))
        if not ranked.count and run.index == 1:
            raise _Unusable(
                f"no line of run 1's output matches {mode.argument!r}; check --compare "
                "against the command's output."
            )
        return _Observed(run=run, path=run.stdout, matched=ranked.digest, ranked=ranked)
    path = run.folder / mode.argument
    if not leads_inside(path, run.folder):
        raise _Unusable(
            f"run {run.index}: {mode.argument} leads out of its working directory (through a "
            "symlink), so it was not read; the command must write it inside the folder it runs in."
        )
    if mode.kind == "checksums":
        try:
            return _Observed(run=run, records=checksums.read_folder(path, mode.argument))
        except checksums.ChecksumsError as exc:
            raise _Unusable(f"run {run.index} {exc}") from exc
    if mode.kind == "tensors" and path.is_dir():
        try:
            shards.check_folder(path, mode.argument)
        except TensorFileError as exc:
            raise _Unusable(f"run {run.index}: {exc}") from exc
        return _Observed(run=run, shards=path)
    if not path.is_file():
        raise _Unusable(
            f"run {run.index} wrote no file {mode.argument} in its working directory; the "
            "command must write it relative to the folder it runs in."
        )
    if mode.kind == "tensors":
        try:
            return _Observed(run=run, tensors=load_tensors(path, mode.argument))
        except TensorFileError as exc:
            raise _Unusable(f"run {run.index}: {exc}") from exc
    return _Observed(run=run, path=path, summary=streams.summarize(path))


def _matcher(mode: CompareMode) -> Callable[[str], bool]:
    pattern = re.compile(mode.argument)
    return lambda text: pattern.search(text) is not None


def _difference(mode: CompareMode, first: _Observed, other: _Observed) -> str | None:
    if mode.kind == "tensors":
        return _tensors_difference(mode, first, other)
    if mode.kind == "checksums":
        assert first.records is not None and other.records is not None
        return checksums.difference(first.records, other.records, other.run.index)
    assert first.path is not None and other.path is not None
    where = f" of {mode.argument}" if mode.kind == "file" else ""
    if mode.kind == "regex":
        assert first.ranked is not None and other.ranked is not None
        if first.ranked.by_rank:  # every matching line of run 1 is a rank's
            differ = ranks.differing_ranks(first.ranked, other.ranked)
            if not differ:
                return None
            pair = ranks.first_different_line(first.path, other.path, _matcher(mode), differ[0])
            more = f"; {len(differ) - 1} more ranks differ" if len(differ) > 2 else ""
            more = "; 1 more rank differs" if len(differ) == 2 else more
            return _line_message(pair, f" of the output ({ranks.shown(differ[0])}{more})")
        if first.matched == other.matched:
            return None
        test = ranks.stripped(_matcher(mode))
        pair = streams.first_different_line(
            streams.matching(first.path, test), streams.matching(other.path, test)
        )
        return _line_message(pair, " of the output")
    assert first.summary is not None and other.summary is not None
    if first.summary == other.summary:
        return None
    if first.has_lines or other.has_lines or not first.summary.size or not other.summary.size:
        start, number = 0, 0
        if first.has_lines and other.has_lines:  # skip the equal lines at C speed
            offset = streams.first_different_byte(first.path, other.path) or 0
            start, number = streams.last_line_start(first.path, offset)
        pair = streams.first_different_line(
            _lines(first, start, number), _lines(other, start, number)
        )
        if pair is not None:
            return _line_message(pair, where)
        return f"in line endings or the final newline{where}"
    byte = streams.first_different_byte(first.path, other.path)
    return f"at byte {byte}{where} ({first.summary.size} and {other.summary.size} bytes)"


def _tensors_difference(mode: CompareMode, first: _Observed, other: _Observed) -> str | None:
    if first.tensors is not None and other.tensors is not None:
        found = tensors_difference(first.tensors, other.tensors)
        return f"at {found}" if found is not None else None
    if first.shards is not None and other.shards is not None:
        try:
            return shards.folder_difference(first.shards, other.shards, mode.argument)
        except TensorFileError as exc:
            raise _Unusable(f"run {other.run.index}: {exc}") from exc
    one, two = ("a folder", "a file") if first.shards is not None else ("a file", "a folder")
    return f"in kind: run 1 wrote {mode.argument} as {one}, run {other.run.index} as {two}"


def _lines(observed: _Observed, start: int, number: int) -> Iterator[streams.Line]:
    """The output's lines from byte ``start``; none for a file that is not UTF-8 text."""
    if observed.path is None or not observed.has_lines:
        return iter(())
    return streams.lines(observed.path, start, number)


def _line_message(
    pair: tuple[streams.Line | None, streams.Line | None] | None, where: str
) -> str | None:
    if pair is None:
        return None
    a, b = pair
    shown = a if a is not None else b
    number = shown.number if shown is not None else 0
    return f"at line {number}{where}: {_shown(a)} != {_shown(b)}"


def _shown(line: streams.Line | None) -> str:
    if line is None:
        return "(no line)"
    text = line.text
    if len(text) > SHOWN_CHARS or line.cut:
        text = text[:SHOWN_CHARS] + "..."
    return repr(text)
