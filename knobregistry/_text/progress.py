"""Steps that can take seconds announce themselves; the CLI decides whether anyone sees them.

Library code wraps a slow step in ``with step("scanning src"):``, or, when it can count
what is done, in ``with counting("scanning src", "files") as tick:`` and calls
``tick(done, total)``. Nothing is shown unless a command installed a reporter with
:func:`reporting` (the commands that can take seconds do): libraries never print. On a
terminal the reporter draws a spinner or a bar on standard error; piped or redirected
(CI), a count goes there as a line every few seconds, once it has taken that long.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

Tick = Callable[[int, int], None]  # (done, total)
REFRESH_SECONDS = 0.1  # a counter is redrawn at most this often (and at its start and end)
# Piped: a count's line at most this often, the first after as long (KNOBS_PROGRESS_SECONDS).
LINE_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Reporter:
    """How a command shows slow steps: a step alone, or a step that counts its work."""

    step: Callable[[str], AbstractContextManager[object]]
    count: Callable[[str, str], AbstractContextManager[Tick]]  # (label, what it counts)


_REPORTER: ContextVar[Reporter | None] = ContextVar("knobs_progress", default=None)


def step(label: str) -> AbstractContextManager[object]:
    """A context for one slow step, shown by the installed reporter (if any)."""
    reporter = _REPORTER.get()
    return reporter.step(label) if reporter is not None else nullcontext()


def counting(label: str, noun: str) -> AbstractContextManager[Tick | None]:
    """A context for a slow step that counts its ``noun`` (``files``): it gives the
    function to call with ``(done, total)``, or None when nobody is shown the count."""
    reporter = _REPORTER.get()
    return reporter.count(label, noun) if reporter is not None else nullcontext(None)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Show the steps run inside this block with ``reporter`` (None: show nothing)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def stderr_reporter() -> Reporter:
    """Progress on standard error: on a terminal, transient (:func:`terminal_reporter`);
    otherwise, a count's line every few seconds (:func:`line_reporter`)."""
    return terminal_reporter() or line_reporter(_line_seconds())


def _line_seconds() -> float:
    """KNOBS_PROGRESS_SECONDS when it is a number of seconds (0: every count), else 5."""
    try:
        seconds = float(os.environ.get("KNOBS_PROGRESS_SECONDS", ""))
    except ValueError:
        return LINE_SECONDS
    return seconds if 0 <= seconds < float("inf") else LINE_SECONDS


def line_reporter(seconds: float) -> Reporter:
    """Counts as plain lines on standard error, for a pipe or a CI log: `knobs: scanning
    src: 1,234 of 5,678 files`, at most every ``seconds``, the first once the step has
    taken that long (a quick scan says nothing), the last when it is done. Steps that
    cannot count say nothing."""

    def count(label: str, noun: str) -> AbstractContextManager[Tick]:
        return _lines(label, noun, seconds)

    return Reporter(step=lambda label: nullcontext(), count=count)


@contextmanager
def _lines(label: str, noun: str, seconds: float) -> Iterator[Tick]:
    last = time.monotonic()
    said = done_said = False

    def tick(done: int, total: int) -> None:
        nonlocal last, said, done_said
        now = time.monotonic()
        finished = done >= total
        if done_said or not (now - last >= seconds or (said and finished)):
            return
        sys.stderr.write(f"knobs: {label}: {done:,} of {total:,} {noun}\n")
        sys.stderr.flush()
        last, said, done_said = now, True, finished

    yield tick


def terminal_reporter() -> Reporter | None:
    """Transient progress on standard error when it is a terminal; None otherwise."""
    if not (sys.stderr.isatty() or os.environ.get("FORCE_COLOR")):
        return None  # what rich would say, without importing it (a warm scan is quick)
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    if not console.is_terminal:
        return None

    def show(label: str) -> AbstractContextManager[object]:
        return console.status(f"knobs: {label}...", spinner="dots")

    def count(label: str, noun: str) -> AbstractContextManager[Tick]:
        return _counter(console, label, noun)

    return Reporter(step=show, count=count)


@contextmanager
def _counter(console: Console, label: str, noun: str) -> Iterator[Tick]:
    """A bar with ``done of total noun``, redrawn as the count moves (no thread of its own:
    the scan forks its workers meanwhile)."""
    from rich.progress import BarColumn, Progress, TextColumn

    columns = (TextColumn("knobs: {task.description}"), BarColumn(), TextColumn("{task.fields[n]}"))
    with Progress(*columns, console=console, transient=True, auto_refresh=False) as bar:
        task = bar.add_task(label, total=None, n="")
        bar.refresh()
        drawn = time.monotonic()

        def tick(done: int, total: int) -> None:
            nonlocal drawn
            bar.update(task, completed=done, total=total, n=f"{done:,} of {total:,} {noun}")
            now = time.monotonic()
            if done in (0, total) or now - drawn >= REFRESH_SECONDS:
                drawn = now
                bar.refresh()

        yield tick
