"""Judge the runs of one setting: equal outputs, a first difference, or an error.

Modes: `stdout` (the whole standard output), `regex:PATTERN` (only the lines of
standard output where PATTERN matches), `file:PATH` (the bytes of a file the
command writes, relative to its working directory) and `tensors:PATH` (a
`torch.save`d tensor or dict of tensors, compared bit for bit).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knobregistry.registry import Verdict
from knobregistry.triage.model import Run
from knobregistry.triage.tensors import TensorFileError, load_tensors, tensors_difference

MODES = ("stdout", "regex:PATTERN", "file:PATH", "tensors:PATH")
STDERR_TAIL_LINES = 12
SHOWN_CHARS = 160


class CompareError(ValueError):
    """A --compare value that cannot be used."""


class _Unusable(Exception):
    """An output that cannot be compared: no file, no matching line."""


@dataclass(frozen=True, slots=True)
class CompareMode:
    kind: str  # stdout | regex | file | tensors
    argument: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.argument}" if self.argument else self.kind


def parse_compare(text: str) -> CompareMode:
    """Parse a --compare value; raises CompareError with what to write instead."""
    kind, colon, argument = text.partition(":")
    if text == "stdout":
        return CompareMode("stdout")
    if kind not in ("regex", "file", "tensors") or not colon or not argument:
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
    if kind == "tensors" and importlib.util.find_spec("torch") is None:
        raise CompareError(
            f"--compare '{text}' needs torch in the environment that runs knobs; "
            "pip install torch (or knobregistry[examples])."
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
    """The last non-blank ``lines`` of a run's stderr."""
    try:
        text = path.read_bytes()[-16384:].decode("utf-8", errors="replace")
    except OSError:
        return []
    kept = [line.rstrip() for line in text.splitlines() if line.strip()]
    return kept[-lines:]


@dataclass(frozen=True, slots=True)
class _Observed:
    run: Run
    raw: bytes = b""
    lines: tuple[tuple[int, str], ...] = ()  # (line number, text)
    tensors: dict[str, Any] | None = None


def _observe(mode: CompareMode, run: Run) -> _Observed:
    if mode.kind in ("stdout", "regex"):
        raw = run.stdout.read_bytes()
        lines = tuple(enumerate(raw.decode("utf-8", errors="replace").splitlines(), start=1))
        if mode.kind == "regex":
            pattern = re.compile(mode.argument)
            lines = tuple((n, text) for n, text in lines if pattern.search(text))
            if not lines and run.index == 1:
                raise _Unusable(
                    f"no line of run 1's output matches {mode.argument!r}; check --compare "
                    "against the command's output."
                )
        return _Observed(run, raw, lines)
    path = run.folder / mode.argument
    if not path.is_file():
        raise _Unusable(
            f"run {run.index} wrote no file {mode.argument} in its working directory; the "
            "command must write it relative to the folder it runs in."
        )
    if mode.kind == "tensors":
        try:
            return _Observed(run, tensors=load_tensors(path, mode.argument))
        except TensorFileError as exc:
            raise _Unusable(f"run {run.index}: {exc}") from exc
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _Observed(run, raw)
    return _Observed(run, raw, tuple(enumerate(text.splitlines(), start=1)))


def _difference(mode: CompareMode, first: _Observed, other: _Observed) -> str | None:
    if first.tensors is not None and other.tensors is not None:
        found = tensors_difference(first.tensors, other.tensors)
        return f"at {found}" if found is not None else None
    where = f" of {mode.argument}" if mode.kind == "file" else ""
    if mode.kind == "regex":
        return _line_difference(first.lines, other.lines, " of the output")
    if first.raw == other.raw:
        return None
    if first.lines or other.lines or not first.raw or not other.raw:
        found = _line_difference(first.lines, other.lines, where)
        if found is not None:
            return found
        return f"in line endings or the final newline{where}"
    offset = next(
        (i for i, (a, b) in enumerate(zip(first.raw, other.raw, strict=False)) if a != b),
        min(len(first.raw), len(other.raw)),
    )
    return f"at byte {offset}{where} ({len(first.raw)} and {len(other.raw)} bytes)"


def _line_difference(
    first: tuple[tuple[int, str], ...], other: tuple[tuple[int, str], ...], where: str
) -> str | None:
    for index in range(max(len(first), len(other))):
        a = first[index] if index < len(first) else None
        b = other[index] if index < len(other) else None
        if a is not None and b is not None and a[1] == b[1]:
            continue
        number = (a or b or (0, ""))[0]
        return f"at line {number}{where}: {_shown(a)} != {_shown(b)}"
    return None


def _shown(line: tuple[int, str] | None) -> str:
    if line is None:
        return "(no line)"
    text = line[1]
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + "..."
    return repr(text)
